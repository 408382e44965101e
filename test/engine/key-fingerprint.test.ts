import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../control/governor.ts';

const KEY = 'mfk_0123456789abcdef0123456789abcdef0123456789abcdef';
const URL_A = 'https://api.example.com/v1';

describe('keyFingerprint (the rate governor names a key by it)', () => {
  it.each([
    ['is 32 hex characters', () => expect(keyFingerprint(URL_A, KEY)).toMatch(/^[0-9a-f]{32}$/)],
    [
      'is the same wherever it is computed',
      () => expect(keyFingerprint(URL_A, KEY)).toBe(keyFingerprint(URL_A, KEY)),
    ],
    [
      'is one per service, not per path (workers and clients may spell the URL differently)',
      () => expect(keyFingerprint('https://api.example.com/other', KEY)).toBe(keyFingerprint(URL_A, KEY)),
    ],
    [
      'differs between services: the same key at two services is two rate limits',
      () => expect(keyFingerprint('https://eu.example.com/v1', KEY)).not.toBe(keyFingerprint(URL_A, KEY)),
    ],
    [
      'differs between keys',
      () => expect(keyFingerprint(URL_A, `${KEY}x`)).not.toBe(keyFingerprint(URL_A, KEY)),
    ],
    [
      'is not a plain sha256 of the key, which another system might log',
      () => expect(createHash('sha256').update(KEY).digest('hex')).not.toContain(keyFingerprint(URL_A, KEY)),
    ],
  ])('%s', (_, check) => check());
});

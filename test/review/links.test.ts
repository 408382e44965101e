/**
 * Review links without a server (issue 24): what verifies and what does not, durations as typed
 * on the command line, and the `review` field a manifest line gains from the decision records.
 */
import { describe, expect, it } from 'vitest';
import { reviewOf } from '../../records/decisions.ts';
import { type LinkClaims, parseDuration, signLink, verifyLink } from '../../review/links.ts';
import { decided, latest, stillsAndClips } from '../helpers/review-fixtures.ts';

const secret = Buffer.alloc(32, 1);
const now = 1_800_000_000_000;
const claims: LinkClaims = {
  id: '0123456789abcdef',
  campaign: 'launch',
  name: 'Ana',
  role: 'decide',
  exp: now + 1000,
};
const keys = { secret, revoked: new Set<string>() };

describe('review links', () => {
  it('verify for their campaign until they expire, unless revoked', () => {
    const token = signLink(secret, claims);
    expect(verifyLink(token, keys, 'launch', now)).toEqual(claims);
    expect(verifyLink(token, keys, 'launch', now + 1000)).toBeNull();
    expect(verifyLink(token, keys, 'other', now)).toBeNull();
    expect(verifyLink(token, { secret, revoked: new Set([claims.id]) }, 'launch', now)).toBeNull();
    expect(verifyLink(token, { secret: Buffer.alloc(32, 2), revoked: new Set() }, 'launch', now)).toBeNull();
  });

  it('refuse a payload changed under its signature, and garbage', () => {
    const [, signature] = signLink(secret, claims).split('.');
    const raised = Buffer.from(JSON.stringify({ ...claims, exp: now + 10 ** 9 })).toString('base64url');
    for (const token of [`${raised}.${signature}`, '', '.', 'a.b.c', `${raised}.`, 'x'.repeat(5000)])
      expect(verifyLink(token, keys, 'launch', now), token.slice(0, 40)).toBeNull();
  });

  it.each([
    ['30m', 1_800_000],
    ['48h', 172_800_000],
    ['7d', 604_800_000],
    ['0h', null],
    ['2w', null],
    ['h', null],
    ['-1h', null],
  ])('reads --expires %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('the manifest line’s review', () => {
  const [still] = stillsAndClips().jobs;
  const record = { ...decided(still!, 'approve'), by: 'Ana', at: '2026-11-27T07:00:00.000Z' };
  it('says who decided the line’s take and when', () => {
    expect(reviewOf({ key: still!.key, regenerations: 0 }, latest([record]))).toEqual({
      review: {
        action: 'approve',
        by: 'Ana',
        at: '2026-11-27T07:00:00.000Z',
        take: 0,
        source: 'reviewer',
        note: undefined,
      },
    });
  });
  it('says nothing for a take no one decided (a later take than the decision’s)', () => {
    expect(reviewOf({ key: still!.key, regenerations: 1 }, latest([record]))).toEqual({});
    expect(reviewOf({ key: still!.key, regenerations: 0 }, new Map())).toEqual({});
  });
});

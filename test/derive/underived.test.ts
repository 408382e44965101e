/**
 * Which reviewed derivatives a finish names as not made (activities/derive/reviewed.ts): the
 * campaign opens no gate for those, so none waits for a decision on a file that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { underivedOf } from '../../activities/derive/reviewed.ts';
import type { DerivativeRecord } from '../../records/derivatives.ts';

const key = (n: number) => n.toString(16).padStart(32, '0');
const sha = (c: string) => c.repeat(64);
const take = { sha256: sha('a') };

function record(n: number, state: 'made' | 'failed', parentSha = take.sha256): DerivativeRecord {
  const base = {
    key: key(n),
    step: 'square',
    parent: { key: key(0), prediction_id: 'p', file: 'still/red.png', sha256: parentSha },
    operations: ['resize to 64 px wide'],
    tools: 'sharp 0.34',
    at: '2026-12-03T00:00:00.000Z',
  };
  return state === 'made'
    ? {
        ...base,
        state,
        file: 'square/red.jpg',
        sha256: sha('b'),
        bytes: 9,
        format: 'jpeg',
        width: 64,
        height: 64,
        duration_s: null,
      }
    : { ...base, state, message: 'derive_failed: operation 1 (format): cannot fit 100 bytes' };
}

describe('the reviewed derivatives a finish could not make', () => {
  it.each([
    ['all made', [record(1, 'made'), record(2, 'made')], {}],
    ['the second failed', [record(1, 'made'), record(2, 'failed')], { underived: [1] }],
    ['a record missing (not made yet) is not a failure', [null, record(2, 'failed')], { underived: [1] }],
    ["a failure from the parent's earlier take does not count", [record(1, 'failed', sha('c')), null], {}],
    ['a failed derivative of a step not reviewed is not asked about anyway', [record(3, 'failed')], {}],
  ] as const)('%s', (_, records, expected) => {
    expect(underivedOf([key(1), key(2)], records, take)).toEqual(expected);
  });

  it('nothing for a job without reviewed derivatives', () => {
    expect(underivedOf(undefined, [record(1, 'failed')], take)).toEqual({});
  });
});

/**
 * The answer a reviewer gets when a colleague decided the same take first (review/winners.ts):
 * who won and what they decided, read from the records, which may lag the workflow's refusal.
 */
import { describe, expect, it } from 'vitest';
import type { ReviewAck } from '../../contract/review.ts';
import { buildModel } from '../../review/model.ts';
import { winnerUnrecorded, withWinners } from '../../review/winners.ts';
import { decided, latest, running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const plan = stillsAndClips();
const [s1, , s2] = plan.jobs;
const modelWith = (decisions: Parameters<typeof latest>[0]) =>
  buildModel({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map([s1!, s2!].map((j) => [j.key, saved(j)])),
    decisions: latest(decisions),
    progress: running(plan),
  });
const refused: ReviewAck = {
  accepted: [],
  refused: [{ key: s1!.key, reason: 'not_awaiting_review', message: 'decided already' }],
};

describe('the loser of two decisions on one take', () => {
  it('is told who won, what, and on which take, once the winner is recorded', () => {
    const won = { ...decided(s1!, 'approve'), by: 'Ana' };
    const model = modelWith([won]);
    expect(winnerUnrecorded(refused, model)).toBe(false);
    expect(withWinners(refused, model).refused[0]?.message).toBe(
      `approved by Ana at ${won.at} (take 0): their decision stands`,
    );
  });

  it('waits for the records while the winner is not in them yet', () => {
    const model = modelWith([decided(s2!, 'reject')]);
    expect(winnerUnrecorded(refused, model)).toBe(true);
    expect(withWinners(refused, model)).toEqual(refused);
  });

  it('does not wait when nothing was refused for being decided already', () => {
    const ack: ReviewAck = { accepted: [s1!.key], refused: [] };
    expect(winnerUnrecorded(ack, modelWith([]))).toBe(false);
  });
});

/**
 * The inbox's rows (review/inbox.ts): how many takes of a campaign await review, per step, and
 * since when the oldest has waited (its file's save time); campaigns with none are left out;
 * the longest wait comes first.
 */
import { describe, expect, it } from 'vitest';
import { type InboxRow, inboxOrder, inboxRow, waitedFor } from '../../review/inbox.ts';
import { buildModel } from '../../review/model.ts';
import { decided, latest, running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const plan = stillsAndClips();
const stills = plan.jobs.filter((job) => job.step === 'still');

function rowOf(savedAt: readonly (string | null)[], decisions: ReturnType<typeof decided>[] = []) {
  const entries = new Map(
    stills.flatMap((job, i) =>
      savedAt[i] ? [[job.key, { ...saved(job), finished_at: savedAt[i]! }] as const] : [],
    ),
  );
  const model = buildModel({
    plan,
    reviewedSteps: new Set(['still']),
    entries,
    decisions: latest(decisions),
    progress: running(plan),
  });
  return inboxRow(model, entries);
}

describe('inbox rows', () => {
  it('counts the takes awaiting review and finds the oldest by its save time', () => {
    const row = rowOf(['2026-11-27T08:00:05Z', '2026-11-27T07:59:00Z', null, '2026-11-27T09:00:00Z']);
    expect(row).toEqual({
      campaign: 'review-table',
      awaiting: 3,
      steps: [{ id: 'still', awaiting: 3 }],
      oldestSince: '2026-11-27T07:59:00Z',
    });
  });

  it('a decided take no longer waits: the oldest is the oldest undecided', () => {
    const row = rowOf(['2026-11-27T08:00:05Z', '2026-11-27T07:59:00Z'], [decided(stills[1]!, 'approve')]);
    expect(row).toMatchObject({ awaiting: 1, oldestSince: '2026-11-27T08:00:05Z' });
  });

  it('a campaign with nothing awaiting has no row', () => {
    expect(rowOf([null, null, null, null])).toBeNull();
    expect(rowOf(['2026-11-27T08:00:05Z'], [decided(stills[0]!, 'reject')])).toBeNull();
  });

  it('orders the longest wait first, then by name', () => {
    const row = (campaign: string, oldestSince: string | null): InboxRow => ({
      campaign,
      awaiting: 1,
      steps: [],
      oldestSince,
    });
    const ordered = inboxOrder([
      row('b', '2026-11-27T08:00:00Z'),
      row('unknown', null),
      row('c', '2026-11-27T07:00:00Z'),
      row('a', '2026-11-27T08:00:00Z'),
    ]);
    expect(ordered.map((r) => r.campaign)).toEqual(['c', 'a', 'b', 'unknown']);
  });

  it('says a wait as a person reads it', () => {
    expect(waitedFor(42_000)).toBe('42 s');
    expect(waitedFor(12 * 60_000 + 59_000)).toBe('12 min');
    expect(waitedFor((2 * 60 + 5) * 60_000)).toBe('2 h 05 min');
    expect(waitedFor((3 * 24 + 4) * 3_600_000)).toBe('3 d 4 h');
    expect(waitedFor(-5)).toBe('0 s');
  });
});

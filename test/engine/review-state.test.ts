/**
 * Review gates moving with the campaign's window (state/gates.ts through CampaignState), without a
 * server: parked descendants, releases, skips, time-outs, carried state and its size.
 */
import { describe, expect, it } from 'vitest';
import type { JobRef, StepInfo } from '../../contract/campaign.ts';
import type { ReviewRule } from '../../plan/review.ts';
import * as Jobs from '../../workflows/campaign-state.ts';
import * as Moves from '../../workflows/job-moves.ts';
import * as Gates from '../../workflows/state/gates.ts';

const key = (n: number) => n.toString(16).padStart(32, '0');
const rule: ReviewRule = { timeoutMs: 60_000, onTimeout: 'reject', editPrompt: false };

describe('review gates in the campaign state', () => {
  const steps: StepInfo[] = [
    { id: 'still', model: 'I1', retries: 1, concurrency: null, jobCount: 3, review: rule },
    { id: 'clip', model: 'V4', retries: 0, concurrency: null, jobCount: 3 },
  ];
  /** still-n at 2n with its clip at 2n + 1. */
  const jobs = (from: number, to: number): JobRef[] =>
    [0, 1, 2]
      .flatMap((n) => [
        {
          i: 2 * n,
          key: key(2 * n),
          name: `still-${n}`,
          parent: null,
          step: 0,
          usd: 100,
          end: 2 * n + 2,
          belowUsd: 250,
        },
        { i: 2 * n + 1, key: key(2 * n + 1), name: `clip-${n}`, parent: key(2 * n), step: 1, usd: 250 },
      ])
      .slice(from, to);
  const names = (picked: { job: JobRef }[]) => picked.map(({ job }) => job.name);
  let now = 0;
  const state = Jobs.openCampaign(steps, 6, 10, 2_000, {
    limits: { createsPerSecond: 10, maxInFlight: 10 },
    now: 0,
  });

  it('a finished still waits for review; its clip leaves the window and the window moves on', () => {
    Moves.admit(state, jobs(0, 4));
    expect(names(Moves.pick(state, 10))).toEqual(['still-0', 'still-1']);
    Moves.onCreated(state, 0, 'p0', 0);
    Moves.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 100, file: 'a.png' }, now);
    expect(Moves.pick(state, 10)).toEqual([]);
    expect(Jobs.waitingCount(state)).toBe(1); // clip-1 waits for still-1; clip-0 is parked, not waiting
    Moves.admit(state, jobs(4, 6));
    expect(names(Moves.pick(state, 10))).toEqual(['still-2']);
    expect(Jobs.progress(state, 'c', 0).steps[0]).toMatchObject({ awaiting_review: 1, approved: 0 });
  });

  it('an approval releases the parked clip; a rejection skips it; the campaign stays open until all are decided', () => {
    const { ack, records } = Moves.review(state, [{ key: key(0), action: 'approve' }], 'T');
    expect(ack).toEqual({ accepted: [key(0)], refused: [] });
    expect(records).toEqual([{ key: key(0), action: 'approve', take: 0, at: 'T', source: 'reviewer' }]);
    expect(Gates.nextRead(state)).toEqual({ from: 1, count: 1 });
    Gates.released(state, Gates.nextRead(state)!, jobs(1, 2));
    expect(names(Moves.pick(state, 10))).toEqual(['clip-0']);
    for (const i of [1, 2, 4]) {
      Moves.onCreated(state, i, `p${i}`, 0);
      Moves.onFinished(state, i, { kind: 'succeeded', creditsUsed: i === 1 ? 250 : 100, file: 'f' }, now);
    }
    expect(Jobs.isDone(state)).toBe(false);
    expect(Moves.review(state, [{ key: key(2), action: 'reject' }], 'T').ack.accepted).toEqual([key(2)]);
    Gates.released(state, Gates.nextRead(state)!, jobs(3, 4));
    expect(Jobs.progress(state, 'c', 0).steps[1]).toMatchObject({ skipped: 1 });
  });

  it('gates carry across continue-as-new, and time out by on_timeout', () => {
    const carried = Jobs.carry(state);
    expect(carried.reviews?.keys).toBe(key(4));
    const next = Jobs.openCampaign(steps, 6, 10, 2_000, {
      carried,
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
    });
    expect(Jobs.isDone(next)).toBe(false);
    expect(Gates.deadline(next)).toBe(60_000);
    now = 60_000;
    expect(Gates.timeOut(next, now, 'T')).toEqual([
      { key: key(4), action: 'reject', take: 0, at: 'T', source: 'timeout' },
    ]);
    Gates.released(next, Gates.nextRead(next)!, jobs(5, 6));
    expect(Jobs.isDone(next)).toBe(true);
    expect(Jobs.progress(next, 'c', 0).steps[0]).toMatchObject({
      awaiting_review: 0,
      approved: 1,
      rejected: 2,
    });
  });
});

describe('carried gates stay compact', () => {
  it('10,000 takes awaiting review carry in well under 1 MB', () => {
    const steps: StepInfo[] = [
      { id: 'still', model: 'I1', retries: 1, concurrency: null, jobCount: 10_000, review: rule },
      { id: 'clip', model: 'V4', retries: 0, concurrency: null, jobCount: 10_000 },
    ];
    const state = Jobs.openCampaign(steps, 20_000, 200, null, {
      limits: { createsPerSecond: 100, maxInFlight: 200 },
      now: 0,
    });
    for (let n = 0; n < 10_000; n++) {
      Gates.saved(
        state,
        {
          i: 2 * n,
          key: key(2 * n),
          name: 'x',
          parent: null,
          step: 0,
          usd: 120_000,
          end: 2 * n + 2,
          belowUsd: 650_000,
        },
        0,
        1_764_000_000_000,
      );
    }
    const carried = Jobs.carry(state);
    const bytes = JSON.stringify(carried.reviews).length;
    expect(bytes).toBeLessThan(800_000);
    const next = Jobs.openCampaign(steps, 20_000, 200, null, {
      carried,
      limits: { createsPerSecond: 100, maxInFlight: 200 },
      now: 0,
    });
    expect(Jobs.progress(next, 'c', 0).steps[0]).toMatchObject({ awaiting_review: 10_000 });
    expect(Moves.review(next, [{ key: key(19_998), action: 'approve' }], 'T').ack.accepted).toEqual([
      key(19_998),
    ]);
  });
});

describe('a reviewed step without descendants', () => {
  it('is a keep/reject mark: the campaign waits for it, and a decision ends it', () => {
    const steps: StepInfo[] = [
      { id: 'still', model: 'I1', retries: 0, concurrency: null, jobCount: 1, review: rule },
    ];
    const state = Jobs.openCampaign(steps, 1, 4, null, {
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
    });
    Moves.admit(state, [{ i: 0, key: key(0), name: 'still-0', parent: null, step: 0, usd: 100 }]);
    Moves.pick(state, 1);
    Moves.onCreated(state, 0, 'p0', 0);
    Moves.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 100, file: 'f' }, 0);
    expect(Jobs.isDone(state)).toBe(false);
    expect(Moves.review(state, [{ key: key(0), action: 'reject', note: 'no' }], 'T').ack.accepted).toEqual([
      key(0),
    ]);
    expect(Gates.nextRead(state)).toBeUndefined();
    expect(Jobs.isDone(state)).toBe(true);
    expect(Jobs.progress(state, 'c', 0).steps[0]).toMatchObject({
      succeeded: 1,
      rejected: 1,
      awaiting_review: 0,
    });
  });
});

describe('a take found recorded, retaken after a roll-over', () => {
  it('leaves cached, not succeeded: the gate carries where its take was counted', () => {
    const steps: StepInfo[] = [
      { id: 'still', model: 'I1', retries: 0, concurrency: null, jobCount: 2, review: rule },
    ];
    const stills = [0, 1].map((n) => ({
      i: n,
      key: key(n),
      name: `still-${n}`,
      parent: null,
      step: 0,
      usd: 100,
    }));
    const options = { limits: { createsPerSecond: 10, maxInFlight: 10 }, now: 0 };
    const state = Jobs.openCampaign(steps, 2, 4, null, options);
    Moves.admit(state, stills);
    Moves.pick(state, 2);
    Moves.onCached(state, 0, 0, { take: 0 });
    Moves.onCreated(state, 1, 'p1', 0);
    Moves.onFinished(state, 1, { kind: 'succeeded', creditsUsed: 100, file: 'f' }, 0);
    const next = Jobs.openCampaign(steps, 2, 4, null, { ...options, carried: Jobs.carry(state) });
    Moves.review(next, [{ key: key(0), action: 'regenerate' }], 'T');
    Gates.released(next, Gates.nextRead(next)!, stills.slice(0, 1));
    expect(Jobs.progress(next, 'c', 0).steps[0]).toMatchObject({
      cached: 0,
      succeeded: 1,
      regenerated: 1,
      waiting: 1,
    });
  });
});

/**
 * Review gates moving with the campaign's window (engine/jobs/gated-window.ts and engine/reviews/ through CampaignState), without a
 * server: parked descendants, releases, skips, time-outs, carried state and its size.
 */

import { describe, expect, it } from 'vitest';
import type { JobRef, StepInfo } from '../../contract/campaign.ts';
import type { ReviewRule } from '../../plan/review.ts';
import * as CarryOver from '../../workflows/engine/jobs/carry-over.ts';
import * as GatedWindow from '../../workflows/engine/jobs/gated-window.ts';
import * as Occupancy from '../../workflows/engine/jobs/occupancy.ts';
import * as Transitions from '../../workflows/engine/jobs/transitions.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';
import * as Decisions from '../../workflows/engine/reviews/decisions.ts';
import * as Reviews from '../../workflows/engine/reviews/reviews.ts';
import * as Timeouts from '../../workflows/engine/reviews/timeouts.ts';

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
  const state = CarryOver.openCampaign(steps, 6, 10, 2_000, {
    limits: { createsPerSecond: 10, maxInFlight: 10 },
    now: 0,
  });

  it('a finished still waits for review; its clip leaves the window and the window moves on', () => {
    GatedWindow.admit(state, jobs(0, 4));
    expect(names(Transitions.pick(state, 10))).toEqual(['still-0', 'still-1']);
    Transitions.onCreated(state, 0, 'p0', 0);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 100, file: 'a.png' }, now);
    expect(Transitions.pick(state, 10)).toEqual([]);
    expect(Occupancy.waitingCount(state)).toBe(1); // clip-1 waits for still-1; clip-0 is parked, not waiting
    GatedWindow.admit(state, jobs(4, 6));
    expect(names(Transitions.pick(state, 10))).toEqual(['still-2']);
    expect(Progress.campaignProgress(state, 'c', 0).steps[0]).toMatchObject({
      awaiting_review: 1,
      approved: 0,
    });
  });

  it('an approval releases the parked clip; a rejection skips it; the campaign stays open until all are decided', () => {
    const { ack, records } = Decisions.review(
      state,
      [{ key: key(0), action: 'approve' }],
      'T',
      Occupancy.standing(state),
    );
    expect(ack).toEqual({ accepted: [key(0)], refused: [] });
    expect(records).toEqual([{ key: key(0), action: 'approve', take: 0, at: 'T', source: 'reviewer' }]);
    expect(Reviews.nextRead(state.reviews)).toEqual({ from: 1, count: 1 });
    GatedWindow.released(state, Reviews.nextRead(state.reviews)!, jobs(1, 2));
    expect(names(Transitions.pick(state, 10))).toEqual(['clip-0']);
    for (const i of [1, 2, 4]) {
      Transitions.onCreated(state, i, `p${i}`, 0);
      Transitions.onFinished(
        state,
        i,
        { kind: 'succeeded', creditsUsed: i === 1 ? 250 : 100, file: 'f' },
        now,
      );
    }
    expect(Occupancy.isDone(state)).toBe(false);
    expect(
      Decisions.review(state, [{ key: key(2), action: 'reject' }], 'T', Occupancy.standing(state)).ack
        .accepted,
    ).toEqual([key(2)]);
    GatedWindow.released(state, Reviews.nextRead(state.reviews)!, jobs(3, 4));
    expect(Progress.campaignProgress(state, 'c', 0).steps[1]).toMatchObject({ skipped: 1 });
  });

  it('gates carry across continue-as-new, and time out by on_timeout', () => {
    const carried = CarryOver.carry(state);
    expect(carried.reviews?.keys).toBe(key(4));
    const next = CarryOver.openCampaign(steps, 6, 10, 2_000, {
      carried,
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
    });
    expect(Occupancy.isDone(next)).toBe(false);
    // The review timer reads the deadline without writing the model: only the engine caches it.
    const unread = JSON.stringify(next);
    expect(Timeouts.dueAt(next.reviews, next.steps)).toBe(60_000);
    expect(JSON.stringify(next)).toBe(unread);
    expect(Timeouts.deadline(next.reviews, next.steps)).toBe(60_000);
    expect(Timeouts.dueAt(next.reviews, next.steps)).toBe(60_000);
    now = 60_000;
    expect(Timeouts.timeOut(next.reviews, next.steps, now, 'T', next.window.cursor)).toEqual([
      { key: key(4), action: 'reject', take: 0, at: 'T', source: 'timeout' },
    ]);
    GatedWindow.released(next, Reviews.nextRead(next.reviews)!, jobs(5, 6));
    expect(Occupancy.isDone(next)).toBe(true);
    expect(Progress.campaignProgress(next, 'c', 0).steps[0]).toMatchObject({
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
    const state = CarryOver.openCampaign(steps, 20_000, 200, null, {
      limits: { createsPerSecond: 100, maxInFlight: 200 },
      now: 0,
    });
    for (let n = 0; n < 10_000; n++) {
      GatedWindow.saved(
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
    const carried = CarryOver.carry(state);
    const bytes = JSON.stringify(carried.reviews).length;
    expect(bytes).toBeLessThan(800_000);
    const next = CarryOver.openCampaign(steps, 20_000, 200, null, {
      carried,
      limits: { createsPerSecond: 100, maxInFlight: 200 },
      now: 0,
    });
    expect(Progress.campaignProgress(next, 'c', 0).steps[0]).toMatchObject({ awaiting_review: 10_000 });
    expect(
      Decisions.review(next, [{ key: key(19_998), action: 'approve' }], 'T', Occupancy.standing(next)).ack
        .accepted,
    ).toEqual([key(19_998)]);
  });
});

describe('a reviewed step without descendants', () => {
  it('is a keep/reject mark: the campaign waits for it, and a decision ends it', () => {
    const steps: StepInfo[] = [
      { id: 'still', model: 'I1', retries: 0, concurrency: null, jobCount: 1, review: rule },
    ];
    const state = CarryOver.openCampaign(steps, 1, 4, null, {
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
    });
    GatedWindow.admit(state, [{ i: 0, key: key(0), name: 'still-0', parent: null, step: 0, usd: 100 }]);
    Transitions.pick(state, 1);
    Transitions.onCreated(state, 0, 'p0', 0);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 100, file: 'f' }, 0);
    expect(Occupancy.isDone(state)).toBe(false);
    expect(
      Decisions.review(state, [{ key: key(0), action: 'reject', note: 'no' }], 'T', Occupancy.standing(state))
        .ack.accepted,
    ).toEqual([key(0)]);
    expect(Reviews.nextRead(state.reviews)).toBeUndefined();
    expect(Occupancy.isDone(state)).toBe(true);
    expect(Progress.campaignProgress(state, 'c', 0).steps[0]).toMatchObject({
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
    const state = CarryOver.openCampaign(steps, 2, 4, null, options);
    GatedWindow.admit(state, stills);
    Transitions.pick(state, 2);
    Transitions.onCached(state, 0, 0, { take: 0 });
    Transitions.onCreated(state, 1, 'p1', 0);
    Transitions.onFinished(state, 1, { kind: 'succeeded', creditsUsed: 100, file: 'f' }, 0);
    const next = CarryOver.openCampaign(steps, 2, 4, null, { ...options, carried: CarryOver.carry(state) });
    Decisions.review(next, [{ key: key(0), action: 'regenerate' }], 'T', Occupancy.standing(next));
    GatedWindow.released(next, Reviews.nextRead(next.reviews)!, stills.slice(0, 1));
    expect(Progress.campaignProgress(next, 'c', 0).steps[0]).toMatchObject({
      cached: 0,
      succeeded: 1,
      regenerated: 1,
      waiting: 1,
    });
  });
});

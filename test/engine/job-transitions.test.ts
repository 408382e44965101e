import { describe, expect, it } from 'vitest';
import type { JobRef, StepInfo } from '../../contract/campaign.ts';
import * as CarryOver from '../../workflows/engine/jobs/carry-over.ts';
import * as GatedWindow from '../../workflows/engine/jobs/gated-window.ts';
import * as Occupancy from '../../workflows/engine/jobs/occupancy.ts';
import * as Slots from '../../workflows/engine/jobs/slots.ts';
import * as Tally from '../../workflows/engine/jobs/tally.ts';
import * as Transitions from '../../workflows/engine/jobs/transitions.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';

const steps: StepInfo[] = [
  { id: 'hero', model: 'I1', retries: 1, concurrency: null, jobCount: 3 },
  { id: 'teaser', model: 'V4', retries: 0, concurrency: 1, jobCount: 3 },
];
const limits = { createsPerSecond: 10, maxInFlight: 50 };

/** hero-0 → teaser-0, hero-1 → teaser-1, hero-2 → teaser-2, in the plan's depth-first order. */
function chainedJobs(): JobRef[] {
  return [0, 1, 2].flatMap((n) => [
    { i: 2 * n, key: `h${n}`, name: `hero-${n}`, parent: null, step: 0, usd: 120_000 },
    { i: 2 * n + 1, key: `t${n}`, name: `teaser-${n}`, parent: `h${n}`, step: 1, usd: 250_000 },
  ]);
}

function newState(options: { budget?: number | null; concurrency?: number; chainsFirst?: boolean } = {}) {
  const chained = options.chainsFirst
    ? steps.map((step, n) => (n === 1 ? { ...step, from: 0 } : step))
    : steps;
  const state = CarryOver.openCampaign(chained, 6, options.concurrency ?? 10, options.budget ?? null, {
    limits,
    now: 0,
    longestChainsFirst: options.chainsFirst ?? false,
  });
  GatedWindow.admit(state, chainedJobs());
  return state;
}

const ids = (jobs: { job: JobRef }[]) => jobs.map(({ job }) => job.name);

describe('the jobs of a campaign state, moved by their transitions', () => {
  it('starts a child only after its parent has left the window', () => {
    const state = newState();
    expect(ids(Transitions.pick(state, 10))).toEqual(['hero-0', 'hero-1', 'hero-2']);
    Transitions.onCreated(state, 0, 'p0', 0);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'hero/hero-0.png' }, 0);
    expect(ids(Transitions.pick(state, 10))).toEqual(['teaser-0']);
  });

  it('with longest chains first, starts a ready hero before the teaser of a hero already done', () => {
    const plain = newState({ concurrency: 2 });
    const chained = newState({ concurrency: 2, chainsFirst: true });
    for (const state of [plain, chained]) {
      expect(ids(Transitions.pick(state, 1))).toEqual(['hero-0']);
      Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    }
    expect(ids(Transitions.pick(plain, 1))).toEqual(['teaser-0']);
    expect(ids(Transitions.pick(chained, 1))).toEqual(['hero-1']);
  });

  it('with longest chains first, counts only waiting jobs that could start, and reads far ahead', () => {
    const plain = newState();
    const chained = newState({ chainsFirst: true });
    for (const state of [plain, chained]) Transitions.pick(state, 3); // the heroes: their teasers wait for them
    expect(Occupancy.waitingCount(plain)).toBe(3);
    expect(Occupancy.waitingCount(chained)).toBe(0);
    const big = (chainsFirst: boolean) =>
      CarryOver.openCampaign(steps, 100_000, 10, null, { limits, now: 0, longestChainsFirst: chainsFirst });
    expect(Occupancy.wanted(big(false))).toBe(100);
    expect(
      Occupancy.wanted(
        CarryOver.openCampaign(
          steps.map((step, n) => (n === 1 ? { ...step, from: 0 } : step)),
          100_000,
          10,
          null,
          { limits, now: 0, longestChainsFirst: true },
        ),
      ),
    ).toBe(2_000);
  });

  it('keeps a step within its own concurrency', () => {
    const state = newState();
    Transitions.pick(state, 10);
    for (const i of [0, 2])
      Transitions.onFinished(state, i, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    expect(ids(Transitions.pick(state, 10))).toEqual(['teaser-0']);
    expect(Transitions.pick(state, 10)).toEqual([]);
  });

  it('never lets spent + committed pass the budget, and stops submitting at the first job that does not fit', () => {
    const state = newState({ budget: 500_000 });
    expect(ids(Transitions.pick(state, 10))).toEqual(['hero-0', 'hero-1', 'hero-2']);
    expect(state.budget.committed).toBe(360_000);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    // teaser-0 costs 0.25: 0.12 spent + 0.24 committed + 0.25 > 0.50
    expect(Transitions.pick(state, 10)).toEqual([]);
    expect(state.halt.reason).toBe('budget_reached');
    expect(Occupancy.isDone(state)).toBe(false);
    Transitions.onFinished(state, 2, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    Transitions.onFinished(state, 4, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    expect(Occupancy.isDone(state)).toBe(true);
    expect(state.budget.spent).toBe(360_000);
    expect(Progress.campaignProgress(state, 'c', 10).outcome).toBe('budget_reached');
  });

  it('counts in flight only predictions the service has; gives no ETA once submission stopped', () => {
    const state = newState({ budget: 500_000 });
    Transitions.pick(state, 10);
    // Picked, not created yet (a re-run may find them recorded and pay nothing): committed, not in flight.
    expect(Progress.campaignProgress(state, 'c', 10)).toMatchObject({
      committed: 360_000,
      inFlight: 0,
      submitting: true,
    });
    Transitions.onCreated(state, 0, 'p0', 1);
    Transitions.onCreated(state, 2, 'p2', 1);
    expect(Progress.campaignProgress(state, 'c', 10).inFlight).toBe(240_000);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 5_000);
    // How long a hero and a teaser take, as measured (Tally.observeWait): time is left.
    for (const [step, ms] of [5_000, 20_000].entries()) Tally.observeWait(state.tally, ms, step);
    expect(Progress.campaignProgress(state, 'c', 10_000).etaMs).not.toBeNull();
    Transitions.pick(state, 10); // teaser-0 does not fit: submission stops, two heroes still land
    expect(Progress.campaignProgress(state, 'c', 10_000)).toMatchObject({
      outcome: 'running',
      submitting: false,
      etaMs: null,
    });
  });

  it('regenerates a failed prediction up to the step retries, then reports the failure', () => {
    const state = newState();
    Transitions.pick(state, 10);
    Transitions.onFinished(state, 0, { kind: 'failed', creditsUsed: 0, message: 'moderation' }, 0);
    const again = Transitions.pick(state, 10);
    expect(again).toEqual([{ job: expect.objectContaining({ name: 'hero-0' }), regen: 1 }]);
    Transitions.onFinished(state, 0, { kind: 'failed', creditsUsed: 0, message: 'moderation again' }, 0);
    expect(state.tally.counts[0]).toMatchObject({ regenerated: 1, failed: 1 });
    expect(state.tally.recentFailures).toEqual([
      { job: 'hero-0', step: 'hero', message: 'moderation again' },
    ]);
  });

  it('carries only the window across continue-as-new and resumes where it stopped', () => {
    const state = newState();
    Transitions.pick(state, 1);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    const carried = CarryOver.carry(state);
    expect(carried.waiting).toHaveLength(5);
    const resumed = CarryOver.openCampaign(steps, 6, 10, null, { carried, limits, now: 99 });
    expect(resumed.budget.spent).toBe(120_000);
    expect(resumed.runs).toBe(2);
    expect(ids(Transitions.pick(resumed, 10))).toEqual(['teaser-0', 'hero-1', 'hero-2']);
  });

  it('refuses to roll over while a create is under way', () => {
    const state = newState();
    Transitions.pick(state, 1);
    expect(() => CarryOver.carry(state)).toThrow(/create under way/);
  });

  it('hands predictions in flight to the next run, with their money still committed', () => {
    const state = newState();
    Transitions.pick(state, 2);
    Transitions.onCreated(state, 0, 'p0', 0);
    Transitions.onCreated(state, 2, 'p2', 0);
    const carried = CarryOver.carry(state);
    expect(carried.inFlight.map((f) => f.predictionId)).toEqual(['p0', 'p2']);
    const resumed = CarryOver.openCampaign(steps, 6, 10, null, { carried, limits, now: 99 });
    expect(resumed.budget.committed).toBe(240_000);
    expect(Occupancy.activeCount(resumed)).toBe(2);
    // teaser-0 still waits for hero-0, which is in flight in the new run.
    expect(ids(Transitions.pick(resumed, 10))).toEqual(['hero-2']);
    Transitions.onFinished(resumed, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    expect(ids(Transitions.pick(resumed, 10))).toEqual(['teaser-0']);
  });

  it('reserves a heir outside the window, under the budget, and hands it the slot when its predecessor ends', () => {
    const state = newState({ budget: 600_000, concurrency: 1 });
    expect(ids(Transitions.pick(state, 10))).toEqual(['hero-0']);
    Transitions.onCreated(state, 0, 'p0', 0);
    // The window (1) is full, yet hero-1 can be reserved as hero-0's heir.
    expect(Transitions.pick(state, 10)).toEqual([]);
    expect(Transitions.reserveHeir(state, 0)?.job.name).toBe('hero-1');
    expect(state.budget.committed).toBe(240_000);
    expect(Occupancy.activeCount(state)).toBe(1);
    // Its children wait for it like for any job in the window.
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    Slots.promoteHeir(state.slots, 0);
    expect(Occupancy.activeCount(state)).toBe(1);
    Transitions.onCreated(state, 2, 'p2', 5);
    expect(ids(Transitions.pick(state, 10))).toEqual([]);
    // teaser-0 (0.25) fits next to 0.12 spent + 0.12 committed; hero-2 then would not.
    expect(Transitions.reserveHeir(state, 2)?.job.name).toBe('teaser-0');
    expect(Transitions.reserveHeir(state, 99)).toBeNull();
    expect(state.halt.reason).toBe('budget_reached');
  });

  it('carries a heir across continue-as-new with its predecessor', () => {
    const state = newState();
    Transitions.pick(state, 1);
    Transitions.onCreated(state, 0, 'p0', 7);
    Transitions.reserveHeir(state, 0);
    const carried = CarryOver.carry(state);
    expect(carried.inFlight).toEqual([
      expect.objectContaining({
        predictionId: 'p0',
        startedAt: 7,
        heir: expect.objectContaining({ regen: 0 }),
      }),
    ]);
    const resumed = CarryOver.openCampaign(steps, 6, 10, null, { carried, limits, now: 99 });
    expect(resumed.budget.committed).toBe(240_000);
    // The heir runs with its predecessor (its finish creates it): running, not waiting.
    expect(Progress.campaignProgress(resumed, 'c', 100).steps[0]).toMatchObject({ running: 2, waiting: 1 });
    Transitions.cancelAll(resumed);
    expect(resumed.budget.committed).toBe(0);
  });

  it('marks in-flight jobs canceled on cancel', () => {
    const state = newState();
    Transitions.pick(state, 10);
    Transitions.cancelAll(state);
    expect(state.tally.counts[0]!.canceled).toBe(3);
    expect(Occupancy.isDone(state)).toBe(true);
    expect(Progress.campaignProgress(state, 'c', 1).outcome).toBe('canceled');
  });
});

/** Every count of the progress means what its name says, at every moment. */
describe('progress counts', () => {
  const step = (p: ReturnType<typeof Progress.campaignProgress>, id: string) =>
    p.steps.find((s) => s.id === id)!;

  it('an heir is running, not waiting: its finish creates it at the service with no decision left', () => {
    const state = newState({ concurrency: 1 });
    Transitions.pick(state, 10);
    Transitions.onCreated(state, 0, 'p0', 0);
    expect(Transitions.reserveHeir(state, 0)?.job.name).toBe('hero-1');
    // hero-0 at the service, hero-1 handed to its finish; hero-2 and the teasers still to start.
    expect(step(Progress.campaignProgress(state, 'c', 10), 'hero')).toMatchObject({ running: 2, waiting: 1 });
    expect(step(Progress.campaignProgress(state, 'c', 10), 'teaser')).toMatchObject({
      running: 0,
      waiting: 3,
    });
  });

  it('jobs whose parents have not ended are waiting, not left out of every count', () => {
    const state = newState({ chainsFirst: true });
    Transitions.pick(state, 10); // the heroes; the teasers wait for them
    const teaser = step(Progress.campaignProgress(state, 'c', 10), 'teaser');
    expect(teaser).toMatchObject({ planned: 3, running: 0, waiting: 3 });
  });

  it('nothing waits once submission stopped: the jobs left will not run in this campaign', () => {
    const state = newState({ budget: 500_000 });
    Transitions.pick(state, 10);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 120_000, file: 'x' }, 0);
    Transitions.pick(state, 10); // teaser-0 does not fit: submission stops
    expect(step(Progress.campaignProgress(state, 'c', 10), 'teaser')).toMatchObject({
      running: 0,
      waiting: 0,
    });
    expect(step(Progress.campaignProgress(state, 'c', 10), 'hero')).toMatchObject({ running: 2, waiting: 0 });
  });

  it('a finished campaign is not submitting', () => {
    const state = newState();
    for (let round = 0; round < 10 && !Occupancy.isDone(state); round++) {
      for (const { job } of Transitions.pick(state, 10)) {
        Transitions.onCreated(state, job.i, `p${job.i}`, 0);
        Transitions.onFinished(state, job.i, { kind: 'succeeded', creditsUsed: job.usd, file: 'x' }, 0);
      }
    }
    expect(Occupancy.isDone(state)).toBe(true);
    expect(Progress.campaignProgress(state, 'c', 10)).toMatchObject({
      outcome: 'completed',
      submitting: false,
      etaMs: null,
    });
  });

  it('gives no ETA while every output waits for a person and nothing runs', () => {
    const rule = { timeoutMs: 60_000, onTimeout: 'reject', editPrompt: false } as const;
    const reviewed: StepInfo[] = [
      { id: 'still', model: 'I1', retries: 1, concurrency: null, jobCount: 2, review: rule },
      { id: 'clip', model: 'V4', retries: 0, concurrency: null, jobCount: 2 },
    ];
    const key = (n: number) => n.toString(16).padStart(32, '0');
    const state = CarryOver.openCampaign(reviewed, 4, 10, null, { limits, now: 0 });
    GatedWindow.admit(
      state,
      [0, 1].flatMap((n) => [
        { i: 2 * n, key: key(2 * n), name: `still-${n}`, parent: null, step: 0, usd: 100, end: 2 * n + 2 },
        { i: 2 * n + 1, key: key(2 * n + 1), name: `clip-${n}`, parent: key(2 * n), step: 1, usd: 250 },
      ]),
    );
    Transitions.pick(state, 10);
    Transitions.onCreated(state, 0, 'p0', 1);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 100, file: 'a.png' }, 10_000);
    for (const [step, ms] of [10_000, 30_000].entries()) Tally.observeWait(state.tally, ms, step);
    // still-1 still runs: time is left, measured from the one still done.
    expect(Progress.campaignProgress(state, 'c', 10_000).etaMs).not.toBeNull();
    Transitions.onCreated(state, 2, 'p2', 0);
    Transitions.onFinished(state, 2, { kind: 'succeeded', creditsUsed: 100, file: 'b.png' }, 10_000);
    const p = Progress.campaignProgress(state, 'c', 10_000);
    expect(step(p, 'still')).toMatchObject({ awaiting_review: 2, running: 0 });
    // The clips wait on their stills' review: waiting, with no time left to estimate.
    expect(step(p, 'clip')).toMatchObject({ running: 0, waiting: 2 });
    expect(p.etaMs).toBeNull();
  });
});

/**
 * The reducer's decisions as tables (workflows/engine/step.ts): given a model and an event, the
 * effects it asks for and what it changes, without Temporal.
 */

import { describe, expect, it } from 'vitest';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { FailureKind } from '../../contract/failure-policy.ts';
import * as CarryOver from '../../workflows/engine/jobs/carry-over.ts';
import type { Model } from '../../workflows/engine/model.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';
import * as Clock from '../../workflows/engine/pacing/clock.ts';
import { LIMITS_REREAD_MS } from '../../workflows/engine/pacing/decide.ts';
import * as Pacer from '../../workflows/engine/pacing/pacer.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  CLIP_USD,
  createAll,
  createdOutcome,
  finishedOne,
  flightsOf,
  jobsOf,
  kinds,
  loaded,
  STILL_USD,
  succeeded,
  tick,
  viewOf,
} from './step-fixture.ts';

/** The model after its first reads: every job of the plan in the window. */

/** Ticks until the reducer asks for a create, and answers it with each job created. */

describe('step: creating', () => {
  it('a tick with tokens and jobs waiting creates a batch, paced and counted as under way', () => {
    const m = loaded({ stills: 4 });
    const [create] = step(m, tick);
    expect(create).toMatchObject({
      kind: 'create',
      batch: jobsOf({ stills: 4 }).map((job) => ({ job, regen: 0 })),
    });
    expect(viewOf(m).creating).toBe(1);
    expect(viewOf(m).committed).toBe(4 * STILL_USD);
    // Ten tokens a second, four spent: the next tick may create six more but has none waiting.
    expect(Pacer.available(m.pacer, 0)).toBe(6);
  });

  it('rate-bound: the created jobs of a batch are finished by one activity, none naming an heir', () => {
    const m = loaded({ stills: 4, limits: { createsPerSecond: 10, maxInFlight: 50 } });
    const effects = createAll(m);
    expect(kinds(effects)).toEqual(['finish-batch']);
    expect(flightsOf(effects).map((f) => [f.pending.job.name, f.heir])).toEqual([
      ['still-0', null],
      ['still-1', null],
      ['still-2', null],
      ['still-3', null],
    ]);
    expect(viewOf(m).creating).toBe(0);
  });

  it('window-bound: each created job names the next waiting job as its heir, all in one finish', () => {
    const m = loaded({ stills: 4, concurrency: 2, limits: { createsPerSecond: 100, maxInFlight: 50 } });
    const effects = createAll(m);
    expect(kinds(effects)).toEqual(['finish-batch']);
    expect(flightsOf(effects).map((f) => [f.pending.job.name, f.heir?.job.name])).toEqual([
      ['still-0', 'still-2'],
      ['still-1', 'still-3'],
    ]);
    expect(viewOf(m).chaining).toBe(2);
  });

  it('an ended job hands its slot to its heir, whose create spent a token', () => {
    const m = loaded({ stills: 3, concurrency: 1, limits: { createsPerSecond: 100, maxInFlight: 50 } });
    const [first] = flightsOf(createAll(m));
    const tokens = Pacer.available(m.pacer, 1_000);
    const effects = step(m, finishedOne(first!, succeeded(STILL_USD, 1_000, createdOutcome(1, 1_000))));
    expect(flightsOf(effects).map((f) => [f.pending.job.name, f.heir?.job.name])).toEqual([
      ['still-1', 'still-2'],
    ]);
    expect(Pacer.available(m.pacer, 1_000)).toBe(tokens - 1);
    expect(viewOf(m).spent).toBe(STILL_USD);
    expect(viewOf(m).counts[0]).toMatchObject({ succeeded: 1, created: 2 });
  });

  it('a prediction adopted as paid before keeps the mark to its finish and across continue-as-new', () => {
    const m = loaded({ stills: 2, limits: { createsPerSecond: 10, maxInFlight: 50 } });
    const [create] = step(m, tick);
    if (create?.kind !== 'create') throw new Error('expected a create');
    const outcomes: CreateOutcome[] = [
      { kind: 'created', i: 0, predictionId: 'p0', at: 0, paidBefore: true },
      createdOutcome(1),
    ];
    const effects = step(m, { kind: 'created', batch: create.batch, outcomes });
    expect(flightsOf(effects).map((f) => [f.pending.job.name, f.paidBefore])).toEqual([
      ['still-0', true],
      ['still-1', undefined],
    ]);
    // What continue-as-new carries keeps it: the next run's finish is told too.
    expect(CarryOver.carry(m.jobs).inFlight.map((f) => [f.pending.job.name, f.paidBefore])).toEqual([
      ['still-0', true],
      ['still-1', undefined],
    ]);
  });

  it('a 429 puts the job back, pauses creates, marks the limits stale and tells the governor once', () => {
    const m = loaded({ stills: 2, governed: true });
    const [create] = step(m, tick);
    const retry = (i: number) => ({ kind: 'retry' as const, i, afterMs: 2_000 });
    const effects = step(m, {
      kind: 'created',
      batch: create!.kind === 'create' ? create.batch : [],
      outcomes: [retry(0), retry(1)],
    });
    expect(effects).toEqual([
      { kind: 'log', level: 'warn', message: 'rate limited: creates pause', attrs: { forMs: 2_000 } },
      { kind: 'tell-governor', note: { kind: 'throttled', retryAfterMs: 2_000 } },
    ]);
    expect(viewOf(m).limitsStale).toBe(true);
    expect(viewOf(m).waiting).toBe(2);
    expect(viewOf(m).committed).toBe(0);
    expect(Pacer.msUntilNext(m.pacer, 0)).toBeGreaterThanOrEqual(2_000);
    // Stale limits are read again once the refresh interval has passed, before any create.
    Clock.observe(m.clock, 5_000);
    expect(step(m, tick)).toEqual([{ kind: 'read-limits' }]);
  });

  it('limits a 429 made stale are read a second after the last read', () => {
    const m = loaded({ stills: 2 });
    const [create] = step(m, tick);
    step(m, {
      kind: 'created',
      batch: create!.kind === 'create' ? create.batch : [],
      outcomes: [
        { kind: 'retry', i: 0, afterMs: 500 },
        { kind: 'retry', i: 1, afterMs: 500 },
      ],
    });
    Clock.observe(m.clock, LIMITS_REREAD_MS - 1);
    expect(step(m, tick)).not.toContainEqual({ kind: 'read-limits' });
    Clock.observe(m.clock, LIMITS_REREAD_MS);
    expect(step(m, tick)).toEqual([{ kind: 'read-limits' }]);
    // Read: heirs may be named again (decide.ts, mayNameHeir), and creates go on.
    step(m, { kind: 'limits-read', limits: viewOf(m).limits });
    expect(viewOf(m).limitsStale).toBe(false);
  });
});

describe('step: creates never sent are not paced', () => {
  /** Four stills submitted at 0 (10 tokens a second: 6 left), answered with `outcomes`. */
  function answered(outcomes: (i: number) => CreateOutcome, pausedFor = 0): Model {
    const m = loaded({ stills: 4 });
    const [create] = step(m, tick);
    if (create?.kind !== 'create') throw new Error('expected a create');
    if (pausedFor > 0) Pacer.pauseUntil(m.pacer, pausedFor, 0);
    step(m, {
      kind: 'created',
      batch: create.batch,
      outcomes: create.batch.map(({ job }) => outcomes(job.i)),
    });
    return m;
  }
  const cached = (i: number): CreateOutcome => ({ kind: 'cached', i });
  const skipped = (i: number): CreateOutcome => ({ kind: 'skipped', i, reason: 'parent refused' });

  it.each([
    ['cached jobs (a re-run walking recorded ones) give their tokens back', cached, 10],
    ['skipped jobs give theirs back', skipped, 10],
    ['created jobs keep them spent', createdOutcome, 6],
  ])('%s', (_, outcome, tokens) => {
    expect(Pacer.available(answered(outcome).pacer, 0)).toBe(tokens);
  });

  it('gives nothing back while a Retry-After pause holds creates', () => {
    const m = answered(cached, 2_000);
    expect(Pacer.available(m.pacer, 0)).toBe(0);
    expect(Pacer.msUntilNext(m.pacer, 0)).toBeGreaterThanOrEqual(2_000);
  });
});

describe('step: what a failure does (the failure policy, through the reducer)', () => {
  /** A still whose finish failed for good with `kind`; one retry allowed. */
  function lostWith(kind: FailureKind) {
    const m = loaded({ stills: 1, retries: 1 });
    const [flight] = flightsOf(createAll(m));
    step(m, { kind: 'batch-lost', flights: [flight!], lost: { failure: kind, message: `because ${kind}` } });
    const counts = viewOf(m).counts[0]!;
    return {
      stop: viewOf(m).stop,
      waiting: viewOf(m).waiting,
      failed: counts.failed,
      regenerated: counts.regenerated,
    };
  }

  it.each<[FailureKind, ReturnType<typeof lostWith>]>([
    // The user can fix these: the job waits for the next run, which pays nothing twice.
    ['disk_full', { stop: 'disk_full', waiting: 1, failed: 0, regenerated: 0 }],
    ['output_unwritable', { stop: 'output_unwritable', waiting: 1, failed: 0, regenerated: 0 }],
    ['plan_unreadable', { stop: 'plan_unreadable', waiting: 1, failed: 0, regenerated: 0 }],
    ['authentication_failed', { stop: 'authentication_failed', waiting: 1, failed: 0, regenerated: 0 }],
    // A prediction that failed, or could not be fetched, is made again while retries allow.
    ['finish_gave_up', { stop: null, waiting: 1, failed: 0, regenerated: 1 }],
    ['prediction_failed', { stop: null, waiting: 1, failed: 0, regenerated: 1 }],
  ])('a finish lost to %s: %o', (kind, expected) => {
    expect(lostWith(kind)).toEqual(expected);
  });

  it.each<[FailureKind, { stop: string | null; failed: number }]>([
    // The job that met an empty balance fails, and nothing more starts.
    ['insufficient_credits', { stop: 'balance_exhausted', failed: 1 }],
    ['rejected', { stop: null, failed: 1 }],
  ])('a create refused as %s: %o', (failure, expected) => {
    const m = loaded({ stills: 2 });
    const [create] = step(m, tick);
    step(m, {
      kind: 'created',
      batch: create!.kind === 'create' ? create.batch : [],
      outcomes: [{ kind: 'rejected', i: 0, code: 'X', message: 'no', failure }, createdOutcome(1)],
    });
    expect({ stop: viewOf(m).stop, failed: viewOf(m).counts[0]!.failed }).toEqual(expected);
  });

  it('a create batch lost to a stop keeps every job of it for the next run', () => {
    const m = loaded({ stills: 3 });
    const [create] = step(m, tick);
    step(m, {
      kind: 'create-lost',
      batch: create!.kind === 'create' ? create.batch : [],
      lost: { failure: 'disk_full', message: 'ENOSPC' },
    });
    expect({
      stop: viewOf(m).stop,
      waiting: viewOf(m).waiting,
      committed: viewOf(m).committed,
    }).toEqual({
      stop: 'disk_full',
      waiting: 3,
      committed: 0,
    });
    expect(Progress.campaignProgress(m.jobs, 'c', 0).stopMessage).toBe('ENOSPC');
  });

  it('a failed still regenerates up to its retries, then fails and its clip is never created', () => {
    const m = loaded({ stills: 1, chained: true, retries: 1 });
    const failed = {
      outcome: { kind: 'failed', creditsUsed: 0, message: 'bad' },
      heir: null,
      waitedMs: 900,
      at: 1_000,
    } as const;
    for (const take of [0, 1]) {
      const [flight] = flightsOf(createAll(m));
      expect(flight!.pending).toMatchObject({ job: { name: 'still-0' }, regen: take });
      step(m, { kind: 'batch-finished', flights: [flight!], results: [{ kind: 'finished', ...failed }] });
    }
    expect(viewOf(m).counts[0]).toMatchObject({ regenerated: 1, failed: 1 });
    // The clip may start (its parent left the window) and the create reports it skipped.
    const [create] = step(m, tick);
    expect(create).toMatchObject({ kind: 'create', batch: [{ job: { name: 'clip-0' } }] });
  });
});

describe('step: budget, ending, cancel', () => {
  it('the first job that does not fit the budget stops submission: spent plus committed never passes it', () => {
    const m = loaded({ stills: 1, chained: true, budget: STILL_USD + CLIP_USD - 1 });
    const [flight] = flightsOf(createAll(m));
    step(m, {
      kind: 'batch-finished',
      flights: [flight!],
      results: [{ kind: 'finished', ...succeeded(STILL_USD) }],
    });
    // The pick meets the budget and stops; with nothing in flight the campaign is done, which
    // ends the wait it asks for at once (the executor wakes on it).
    expect(step(m, tick)).toEqual([
      { kind: 'publish', indexed: false },
      { kind: 'wait', ms: null },
    ]);
    expect(viewOf(m).stop).toBe('budget_reached');
    expect(viewOf(m).done).toBe(true);
    expect(kinds(step(m, tick))).toEqual(['publish', 'complete']);
    expect(viewOf(m).spent + viewOf(m).committed).toBeLessThanOrEqual(STILL_USD + CLIP_USD - 1);
  });

  it('a governed campaign that completes leaves its governor and publishes its final progress', () => {
    const m = loaded({ stills: 1, governed: true });
    const [flight] = flightsOf(createAll(m));
    const ended = step(m, {
      kind: 'batch-finished',
      flights: [flight!],
      results: [{ kind: 'finished', ...succeeded(STILL_USD) }],
    });
    // Its first measured latency tells the governor the rate it can use.
    expect(ended).toEqual([{ kind: 'tell-governor', note: { kind: 'need', perSecond: 62.5 } }]);
    expect(step(m, tick)).toEqual([
      { kind: 'tell-governor', note: { kind: 'leave' } },
      { kind: 'publish', indexed: false },
      { kind: 'complete' },
    ]);
  });

  it('once canceled, reports change nothing but an heir created meanwhile, counted canceled', () => {
    const m = loaded({ stills: 3, concurrency: 1, limits: { createsPerSecond: 100, maxInFlight: 50 } });
    const [flight] = flightsOf(createAll(m));
    step(m, { kind: 'cancel-requested' });
    const effects = step(m, finishedOne(flight!, succeeded(STILL_USD, 1_000, createdOutcome(1, 1_000))));
    expect(effects).toEqual([]);
    expect(viewOf(m).chaining).toBe(0);
    expect(viewOf(m).counts[0]).toMatchObject({ created: 2, canceled: 1, succeeded: 0 });
    step(m, { kind: 'canceled', after: 'creates' });
    expect(Progress.campaignProgress(m.jobs, 'c', 0).outcome).toBe('canceled');
  });
});

describe('step: the cancel protocol', () => {
  const canceledEnd = [
    { kind: 'publish', indexed: false },
    { kind: 'log', level: 'info', message: 'campaign canceled' },
  ];

  it('cancels upstream once the creates under way have landed, then ends canceled', () => {
    const m = loaded({ stills: 2 });
    createAll(m);
    expect(step(m, { kind: 'cancel-requested' })).toEqual([{ kind: 'cancel-upstream', after: 'creates' }]);
    expect(step(m, { kind: 'canceled', after: 'creates' })).toEqual(canceledEnd);
    expect(Progress.campaignProgress(m.jobs, 'c', 0).outcome).toBe('canceled');
    expect(viewOf(m).counts[0]).toMatchObject({ created: 2, canceled: 2 });
  });

  it('with finishes creating heirs under way, a second pass cancels the heirs they made', () => {
    const m = loaded({ stills: 3, concurrency: 1, limits: { createsPerSecond: 100, maxInFlight: 50 } });
    const [flight] = flightsOf(createAll(m));
    expect(flight?.heir).not.toBeNull();
    step(m, { kind: 'cancel-requested' });
    // The first pass moves nothing while the heir's finish is under way: not even the outcome.
    expect(step(m, { kind: 'canceled', after: 'creates' })).toEqual([
      { kind: 'cancel-upstream', after: 'heirs' },
    ]);
    expect(Progress.campaignProgress(m.jobs, 'c', 0).outcome).toBe('running');
    step(m, finishedOne(flight!, succeeded(STILL_USD, 1_000, createdOutcome(1, 1_000))));
    expect(step(m, { kind: 'canceled', after: 'heirs' })).toEqual(canceledEnd);
    expect(Progress.campaignProgress(m.jobs, 'c', 0).outcome).toBe('canceled');
  });

  it('a governed campaign leaves its governor as it ends canceled', () => {
    const m = loaded({ stills: 1, governed: true });
    step(m, { kind: 'cancel-requested' });
    expect(step(m, { kind: 'canceled', after: 'creates' })).toEqual([
      { kind: 'tell-governor', note: { kind: 'leave' } },
      ...canceledEnd,
    ]);
  });
});

describe('step: limits and shares', () => {
  it('limits read without a governor become the campaign’s, said when they changed', () => {
    const m = loaded({ stills: 1 });
    expect(step(m, { kind: 'limits-read', limits: { createsPerSecond: 10, maxInFlight: 50 } })).toEqual([]);
    expect(step(m, { kind: 'limits-read', limits: { createsPerSecond: 5, maxInFlight: 50 } })).toEqual([
      {
        kind: 'log',
        level: 'info',
        message: 'service limits changed',
        attrs: {
          before: { createsPerSecond: 10, maxInFlight: 50 },
          after: { createsPerSecond: 5, maxInFlight: 50 },
        },
      },
    ]);
    expect(viewOf(m).limits.createsPerSecond).toBe(5);
  });

  it('with a governor, limits read go to the governor, and its share becomes the campaign’s', () => {
    const m = loaded({ stills: 1, governed: true });
    const limits = { createsPerSecond: 20, maxInFlight: 100 };
    expect(step(m, { kind: 'limits-read', limits })).toEqual([
      { kind: 'tell-governor', note: { kind: 'limits', limits } },
    ]);
    expect(viewOf(m).limits).toEqual({ createsPerSecond: 10, maxInFlight: 50 });
    step(m, { kind: 'share', share: { createsPerSecond: 4, maxInFlight: 20, pauseMs: 1_500 } });
    expect(viewOf(m).limits).toEqual({ createsPerSecond: 4, maxInFlight: 20 });
    expect(Pacer.msUntilNext(m.pacer, 0)).toBeGreaterThanOrEqual(1_500);
  });

  it.each([
    ['plan_unreadable', 'stops the campaign', 'campaign stopping'],
    ['disk_full', 'stops the campaign', 'campaign stopping'],
    ['service_unavailable', 'pauses creates', 'service unavailable: creates pause'],
  ] as const)('a read of the loop that fails with %s %s', (failure, _, message) => {
    const m = loaded({ stills: 2 });
    const effects = step(m, { kind: 'read-failed', failure, message: 'no such file' });
    expect(effects).toEqual([expect.objectContaining({ kind: 'log', level: 'warn', message })]);
    if (failure === 'service_unavailable') {
      expect(viewOf(m).outage.current?.reason).toBe('no such file');
      expect(viewOf(m).stop).toBeNull();
      return;
    }
    expect(kinds(step(m, tick))).toEqual(['publish', 'complete']);
    expect(Progress.campaignProgress(m.jobs, 'c', 0)).toMatchObject({
      outcome: failure,
      stopMessage: 'no such file',
    });
  });

  it.each([null, 'prediction_failed', 'create_gave_up'] as const)(
    'a read of the loop that fails with %s fails the workflow, and moves nothing',
    (failure) => {
      const m = loaded({ stills: 2 });
      const before = JSON.stringify(m);
      expect(step(m, { kind: 'read-failed', failure, message: 'boom' })).toEqual([{ kind: 'fail' }]);
      expect(JSON.stringify(m)).toBe(before);
    },
  );

  it.each([
    ['disk_full', ['log']],
    [null, []],
    ['service_unavailable', []],
  ] as const)(
    'decisions unrecordable with %s: stop on a condition of the whole campaign, else nothing',
    (failure, effects) => {
      const m = loaded({ stills: 2 });
      expect(kinds(step(m, { kind: 'record-failed', failure, message: 'ENOSPC' }))).toEqual(effects);
      expect(viewOf(m).stop).toBe(failure === 'disk_full' ? 'disk_full' : null);
    },
  );
});

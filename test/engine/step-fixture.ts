/**
 * The one fixture of the engine's tables (step*.test.ts): a campaign of stills, or of stills each
 * feeding a clip, built as the workflow builds it, without Temporal; the moves every table starts
 * with (`loaded`, `createAll`); and `viewOf`, the small view of the state the tables assert on, so
 * a re-shape of the model breaks this file, not the tables.
 */

import type { CreateOutcome, FinishResult } from '../../contract/activities.ts';
import type { InFlightJob, JobRef, ServiceLimits, StepInfo } from '../../contract/campaign.ts';
import type { NotifyTarget } from '../../contract/notify.ts';
import type { RefusalRule } from '../../plan/refusal.ts';
import type { Effect } from '../../workflows/engine/effects.ts';
import type { CampaignEvent, Tick } from '../../workflows/engine/events.ts';
import { openCampaign } from '../../workflows/engine/jobs/carry-over.ts';
import { activeCount, isDone, maxInFlight, waitingCount } from '../../workflows/engine/jobs/occupancy.ts';
import type { Model } from '../../workflows/engine/model.ts';
import type { Clock } from '../../workflows/engine/pacing/clock.ts';
import { rollOverAt } from '../../workflows/engine/pacing/decide.ts';
import { bucket } from '../../workflows/engine/pacing/pacer.ts';
import { runState } from '../../workflows/engine/pacing/run-state.ts';
import { step } from '../../workflows/engine/step.ts';

export const STILL_USD = 40_000;
export const CLIP_USD = 250_000;

export interface Shape {
  /** Stills in the plan (each followed by its clip when `chained`). */
  readonly stills: number;
  readonly chained?: boolean;
  readonly budget?: number | null;
  readonly concurrency?: number;
  readonly limits?: ServiceLimits;
  readonly retries?: number;
  readonly governed?: boolean;
  /** The stills wait for a reviewer's decision (no timeout). */
  readonly reviewed?: boolean;
  /** The stills' `on_refusal:` (absent: skip); with a fallback, each still costs FALLBACK_USD on it. */
  readonly onRefusal?: RefusalRule;
  /** Spend caps hold the key: jobs start only within reservations the ledger grants (docs/caps.md). */
  readonly capped?: boolean;
}

export const FALLBACK_USD = 30_000;

/** The plan's jobs in its depth-first order: still-n, then its clip when chained. */
export function jobsOf({ stills, chained = false, reviewed = false, onRefusal }: Shape): JobRef[] {
  const fallback = onRefusal?.kind === 'fallback' ? { fallbackUsd: FALLBACK_USD } : {};
  return Array.from({ length: stills }, (_, n) => {
    const still: JobRef = {
      i: 0,
      key: `s${n}`,
      name: `still-${n}`,
      parent: null,
      step: 0,
      usd: STILL_USD,
      ...fallback,
    };
    const clip: JobRef = { i: 0, key: `c${n}`, name: `clip-${n}`, parent: `s${n}`, step: 1, usd: CLIP_USD };
    return chained ? [still, clip] : [still];
  })
    .flat()
    .map((job, i) => ({ ...job, i }))
    .map((job) =>
      reviewed && chained && job.step === 0 ? { ...job, end: job.i + 2, belowUsd: CLIP_USD } : job,
    );
}

export function modelOf(shape: Shape): Model {
  const steps: StepInfo[] = [
    {
      id: 'still',
      model: 'I4',
      retries: shape.retries ?? 1,
      concurrency: null,
      jobCount: shape.stills,
      ...(shape.reviewed
        ? { review: { timeoutMs: null, onTimeout: 'reject' as const, editPrompt: true } }
        : {}),
      ...(shape.onRefusal ? { onRefusal: shape.onRefusal } : {}),
    },
    ...(shape.chained
      ? [{ id: 'clip', model: 'V4' as const, retries: 0, concurrency: null, jobCount: shape.stills, from: 0 }]
      : []),
  ];
  const clock: Clock = { at: 0 };
  const limits = shape.limits ?? { createsPerSecond: 10, maxInFlight: 50 };
  const jobs = openCampaign(steps, jobsOf(shape).length, shape.concurrency ?? 50, shape.budget ?? null, {
    limits,
    now: 0,
    longestChainsFirst: shape.chained ?? false,
    ...(shape.capped && { caps: {} }),
  });
  return {
    jobs,
    run: runState(0),
    pacer: bucket(limits.createsPerSecond, 0),
    clock,
    governed: shape.governed ? { concurrency: shape.concurrency ?? 50, reportedNeed: null } : null,
    rollOverLimit: rollOverAt(maxInFlight(jobs)),
    searchable: false,
  };
}

export const tick: Tick = {
  kind: 'tick',
  historyLength: 10,
  continueAsNewSuggested: false,
  at: '2026-11-25T00:00:00Z',
};

export const createdOutcome = (i: number, at = 0): CreateOutcome => ({
  kind: 'created',
  i,
  predictionId: `p${i}`,
  at,
});

export function succeeded(usd: number, at = 1_000, heir: CreateOutcome | null = null): FinishResult {
  return { outcome: { kind: 'succeeded', creditsUsed: usd, file: 'f.png' }, heir, waitedMs: 1_000, at };
}

export const kinds = (effects: readonly Effect[]) => effects.map((effect) => effect.kind);

/** The flights of `finish-batch` effects, in order. */
export function flightsOf(effects: readonly Effect[]): InFlightJob[] {
  return effects.flatMap((effect) => (effect.kind === 'finish-batch' ? [...effect.flights] : []));
}

/** One prediction's batch reported it ended with `result`. */
export function finishedOne(flight: InFlightJob, result: FinishResult): CampaignEvent {
  return { kind: 'batch-finished', flights: [flight], results: [{ kind: 'finished', ...result }] };
}

/** A campaign of `shape` whose plan is read into its window: the state every table starts from. */
export function loaded(shape: Shape): Model {
  const m = modelOf(shape);
  const [first] = step(m, tick);
  if (first?.kind !== 'load-jobs') throw new Error(`expected the plan to be read, got ${first?.kind}`);
  step(m, { kind: 'jobs-loaded', jobs: jobsOf(shape) });
  return m;
}

/** The tick creates a batch, and every job of it is created: the effects of the creates' answer. */
export function createAll(m: Model): Effect[] {
  const [create] = step(m, tick);
  if (create?.kind !== 'create') throw new Error(`expected a create, got ${create?.kind}`);
  return step(m, {
    kind: 'created',
    batch: create.batch,
    outcomes: create.batch.map(({ job }) => createdOutcome(job.i)),
  });
}

/** What the tables read of the state, by name: the jobs' counts, the money, the stop and the run's work. */
export function viewOf({ jobs, run }: Model) {
  return {
    counts: jobs.tally.counts,
    spent: jobs.budget.spent,
    committed: jobs.budget.committed,
    stop: jobs.halt.reason,
    limits: jobs.limits,
    latencyMs: jobs.tally.latencyMs,
    recentFailures: jobs.tally.recentFailures,
    active: activeCount(jobs),
    waiting: waitingCount(jobs),
    done: isDone(jobs),
    creating: run.creating,
    chaining: run.chaining,
    limitsStale: run.limitsStale,
    outage: run.outage,
  };
}

/** A campaign's `notify` targets: one wants every notice, one only the campaign's end. */
export const EVERY_NOTICE: NotifyTarget = {
  kind: 'standard',
  url: 'https://hooks.example.com/all',
  urlEnv: null,
  secretEnv: 'HOOK_SECRET',
  events: null,
};
export const ENDS_ONLY: NotifyTarget = {
  kind: 'slack',
  url: null,
  urlEnv: 'SLACK_URL',
  secretEnv: null,
  events: ['campaign.completed', 'campaign.stopped'],
};
export const TARGETS = [EVERY_NOTICE, ENDS_ONLY];

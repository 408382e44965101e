/**
 * How the campaign takes each report of its create and finish activities (docs/engine.md,
 * "Heirs"): a created prediction is waited for at once (naming its heir when the window binds),
 * an ended one hands its slot to its heir, and a failure takes the effect the failure policy
 * (contract/failure-policy.ts) gives it. A create the service was too busy (429) or too down
 * for is requeued here and paced by pacing/ (rate-limits.ts, service-down.ts).
 */
import type { CreateOutcome, FinishBatchItem, FinishOutcome } from '../../../contract/activities.ts';
import type { InFlightJob, PendingJob } from '../../../contract/campaign.ts';
import type { Effect } from '../effects.ts';
import type { Lost } from '../events.ts';
import type { Model } from '../model.ts';
import { type StopReason, stopFor } from '../money/stop.ts';
import { observe } from '../pacing/clock.ts';
import { ASSUMED_LATENCY_MS, mayNameHeir } from '../pacing/decide.ts';
import { observeLatency } from '../pacing/governor-share.ts';
import { giveBack, take } from '../pacing/pacer.ts';
import { rateLimited } from '../pacing/rate-limits.ts';
import { draining, markLimitsRead } from '../pacing/run-state.ts';
import { serviceAnswered, serviceDown } from '../pacing/service-down.ts';
import { canceledBatch, finishBatches } from './batches.ts';
import { maxInFlight } from './occupancy.ts';
import { pendingOf, promoteHeir } from './slots.ts';
import { observeWait } from './tally.ts';
import {
  onCached,
  onCreated,
  onFinished,
  onRejected,
  onSkipped,
  requeue,
  reserveHeir,
  stopWith,
} from './transitions.ts';

/** An heir is named only while the window, not the create rate, binds (decide.ts). */
export function mayName({ jobs, run }: Model): boolean {
  return mayNameHeir({
    draining: draining(run),
    limitsStale: run.limitsStale,
    latencyMs: jobs.tally.latencyMs ?? ASSUMED_LATENCY_MS,
    maxInFlight: maxInFlight(jobs),
    createsPerSecond: jobs.limits.createsPerSecond,
  });
}

/**
 * A job's create outcome (of a batch, or an heir's inside a finish): a created job is left in
 * `unpaired`, to be finished with the others of its batch (docs/engine.md, "The ceiling").
 */
function onCreate(m: Model, outcome: CreateOutcome, unpaired: InFlightJob[]): Effect[] {
  if (outcome.kind === 'unavailable') {
    requeue(m.jobs, outcome.i);
    return serviceDown(m, outcome);
  }
  return [...serviceAnswered(m, outcome), ...answered(m, outcome, unpaired)];
}

function answered(
  m: Model,
  outcome: Exclude<CreateOutcome, { kind: 'unavailable' }>,
  unpaired: InFlightJob[],
): Effect[] {
  const { jobs, clock } = m;
  switch (outcome.kind) {
    case 'created': {
      observe(clock, outcome.at);
      const paid = outcome.paidBefore && { paidBefore: outcome.paidBefore };
      onCreated(jobs, outcome.i, outcome.predictionId, outcome.at, paid);
      const pending = pendingOf(jobs.slots, outcome.i);
      const heir = mayName(m) ? reserveHeir(jobs, outcome.i) : null;
      const flight = { pending, predictionId: outcome.predictionId, startedAt: outcome.at, heir, ...paid };
      unpaired.push(flight);
      return [];
    }
    case 'cached':
      onCached(jobs, outcome.i, clock.at, outcome);
      return [];
    case 'skipped':
      onSkipped(jobs, outcome.i);
      return [];
    case 'rejected':
      onRejected(jobs, outcome.i, outcome.message, outcome.failure, outcome.creditsUsed);
      return [];
    case 'retry':
      // The wire's name for a 429 (CreateOutcome): the job is requeued, creates pause.
      requeue(jobs, outcome.i);
      return rateLimited(m, outcome.afterMs);
  }
}

/** A create batch answered: each job's outcome; created jobs naming no heir are finished per step. */
export function created(m: Model, outcomes: readonly CreateOutcome[]): Effect[] {
  m.run.creating--;
  if (m.run.cancelled) return [];
  // Creates never sent (cached, skipped) give their pacer tokens back.
  const unsent = outcomes.filter((outcome) => outcome.kind === 'cached' || outcome.kind === 'skipped');
  if (unsent.length > 0) giveBack(m.pacer, unsent.length, m.clock.at);
  const unpaired: InFlightJob[] = [];
  const effects = outcomes.flatMap((outcome) => onCreate(m, outcome, unpaired));
  return [...effects, ...finishBatches(m, unpaired)];
}

/** A create batch failed for good: a stop keeps its jobs for the next run, else each is rejected. */
export function createLost(m: Model, batch: readonly PendingJob[], lost: Lost | null): Effect[] {
  m.run.creating--;
  if (m.run.cancelled || lost === null) return [];
  const indexes = batch.map(({ job }) => job.i);
  const stop = stopFor(lost.failure);
  if (stop) stopWith(m.jobs, stop, lost.message, indexes);
  // Retries are exhausted only for errors the service marks final: reported per job.
  else for (const i of indexes) onRejected(m.jobs, i, lost.message, 'create_gave_up');
  return [];
}

/**
 * A prediction that named an heir ended: the heir takes its slot. The heir's create spent a token
 * of the service's rate; an heir not tried waits its turn. An heir created is left in `unpaired`,
 * to be finished in a batch.
 */
function handOver(
  m: Model,
  flight: InFlightJob,
  heirOutcome: CreateOutcome | null,
  unpaired: InFlightJob[],
): Effect[] {
  const { jobs, clock, pacer } = m;
  promoteHeir(jobs.slots, flight.pending.job.i);
  if (heirOutcome?.kind === 'created') take(pacer, 1, clock.at);
  if (heirOutcome) return onCreate(m, heirOutcome, unpaired);
  if (flight.heir) requeue(jobs, flight.heir.job.i);
  return [];
}

/** The predictions of one batch ended (finishPredictions), each with its own result. */
export function batchFinished(
  m: Model,
  flights: readonly InFlightJob[],
  results: readonly FinishBatchItem[],
  resumed?: true,
): Effect[] {
  for (const flight of flights) if (flight.heir) m.run.chaining--;
  if (m.run.cancelled) return canceledBatch(m, flights, results);
  const effects: Effect[] = [];
  // Still running when the others were reported, and heirs created: finished by a batch of their own.
  const unfinished: InFlightJob[] = [];
  for (const [n, result] of results.entries()) {
    const flight = flights[n]!;
    if (result.kind === 'pending') {
      unfinished.push(flight);
      continue;
    }
    if (result.kind === 'stopped') {
      jobLost(m, flight.pending.job.i, { failure: result.failure, message: result.message });
      // Whether its heir was created is unknown: it is created again under the same key.
      if (flight.heir) effects.push(...handOver(m, flight, null, unfinished));
      continue;
    }
    observe(m.clock, result.at);
    effects.push(...ended(m, flight.pending, result.outcome, resumed ? null : result.waitedMs));
    if (flight.heir) effects.push(...handOver(m, flight, result.heir, unfinished));
  }
  if (!resumed) return [...effects, ...finishBatches(m, unfinished)];
  // Items of a resumed batch still running stay resumed; heirs it created are this run's own.
  const handed = unfinished.filter((flight) => flights.includes(flight));
  const own = unfinished.filter((flight) => !flights.includes(flight));
  return [...effects, ...finishBatches(m, handed, true), ...finishBatches(m, own)];
}

export function batchLost(m: Model, flights: readonly InFlightJob[], lost: Lost | null): Effect[] {
  for (const flight of flights) if (flight.heir) m.run.chaining--;
  if (m.run.cancelled || lost === null) return [];
  for (const flight of flights) {
    jobLost(m, flight.pending.job.i, lost);
    if (flight.heir) handOver(m, flight, null, []);
  }
  return [];
}

/** A job's outcome; `waitedMs` (null: not measured) feeds the latency, and the governor's view of the need. */
function ended(m: Model, pending: PendingJob, outcome: FinishOutcome, waitedMs: number | null): Effect[] {
  onFinished(m.jobs, pending.job.i, outcome, m.clock.at);
  if (waitedMs === null) return [];
  observeWait(m.jobs.tally, waitedMs, pending.job.step);
  return observeLatency(m);
}

/** A finish failed for good: the failure policy's effect (a stop keeps the job for the next run). */
function jobLost(m: Model, i: number, lost: Lost): void {
  const stop = stopFor(lost.failure);
  if (stop) stopWith(m.jobs, stop, lost.message, [i]);
  else {
    const failed = { kind: 'failed', creditsUsed: null, message: lost.message } as const;
    onFinished(m.jobs, i, failed, m.clock.at, 'finish_gave_up');
  }
}

/**
 * A read of the loop failed on a condition of the whole campaign: it stops with that outcome (the
 * loop then lets work in flight land). A failed limits read is not tried again at once.
 */
export function readLost(m: Model, stop: StopReason, message: string): Effect[] {
  stopWith(m.jobs, stop, message);
  markLimitsRead(m.run, m.clock.at);
  return [
    { kind: 'log', level: 'warn', message: 'campaign stopping', attrs: { outcome: stop, reason: message } },
  ];
}

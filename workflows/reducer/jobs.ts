/**
 * How the campaign takes each report of its create and finish activities (docs/engine.md,
 * "Heirs"): a created prediction is waited for at once (naming its heir when the window binds),
 * an ended one hands its slot to its heir, and a failure takes the effect the failure policy
 * (contract/failure-policy.ts) gives it. Pure decisions over the model: step.ts routes the events.
 */
import type { CreateOutcome, FinishBatchItem, FinishOutcome } from '../../contract/activities.ts';
import type { InFlightJob, PendingJob } from '../../contract/campaign.ts';
import { effectOf, type FailureKind } from '../../contract/failure-policy.ts';
import * as Jobs from '../campaign-state.ts';
import * as Clock from '../clock.ts';
import { ASSUMED_LATENCY_MS, mayNameHeir } from '../decide.ts';
import * as Moves from '../job-moves.ts';
import * as Pacer from '../pacer.ts';
import * as Run from '../run-state.ts';
import * as Slots from '../state/slots.ts';
import { canceledBatch, finishBatches } from './batches.ts';
import type { Effect } from './effects.ts';
import type { Lost } from './events.ts';
import { observeLatency } from './governor.ts';
import type { Model } from './model.ts';
import { serviceAnswered, serviceDown } from './outage.ts';

/** An heir is named only while the window, not the create rate, binds (decide.ts). */
export function mayName({ jobs, run }: Model): boolean {
  return mayNameHeir({
    draining: Run.draining(run),
    limitsStale: run.limitsStale,
    latencyMs: jobs.tally.latencyMs ?? ASSUMED_LATENCY_MS,
    maxInFlight: Jobs.maxInFlight(jobs),
    createsPerSecond: jobs.limits.createsPerSecond,
  });
}

/**
 * A job's create outcome (of a batch, or an heir's inside a finish): a created job is left in
 * `unpaired`, to be finished with the others of its batch (docs/engine.md, "The ceiling").
 */
function onCreate(m: Model, outcome: CreateOutcome, unpaired: InFlightJob[]): Effect[] {
  if (outcome.kind === 'unavailable') return serviceDown(m, outcome);
  return [...serviceAnswered(m, outcome), ...answered(m, outcome, unpaired)];
}

function answered(
  m: Model,
  outcome: Exclude<CreateOutcome, { kind: 'unavailable' }>,
  unpaired: InFlightJob[],
): Effect[] {
  const { jobs, run, clock, pacer } = m;
  switch (outcome.kind) {
    case 'created': {
      Clock.observe(clock, outcome.at);
      const paid = outcome.paidBefore && { paidBefore: outcome.paidBefore };
      Moves.onCreated(jobs, outcome.i, outcome.predictionId, outcome.at, paid);
      const pending = Slots.pendingOf(jobs.slots, outcome.i);
      const heir = mayName(m) ? Moves.reserveHeir(jobs, outcome.i) : null;
      const flight = { pending, predictionId: outcome.predictionId, startedAt: outcome.at, heir, ...paid };
      unpaired.push(flight);
      return [];
    }
    case 'cached':
      Moves.onCached(jobs, outcome.i, clock.at, outcome);
      return [];
    case 'skipped':
      Moves.onSkipped(jobs, outcome.i);
      return [];
    case 'rejected':
      Moves.onRejected(jobs, outcome.i, outcome.message, outcome.failure, outcome.creditsUsed);
      return [];
    case 'retry': {
      // Said once per read of the limits, like the governor's note.
      const effects: Effect[] = run.limitsStale
        ? []
        : [
            {
              kind: 'log',
              level: 'warn',
              message: 'rate limited: creates pause',
              attrs: { forMs: outcome.afterMs },
            },
            ...(m.governed
              ? [
                  {
                    kind: 'tell-governor',
                    note: { kind: 'throttled', retryAfterMs: outcome.afterMs },
                  } as const,
                ]
              : []),
          ];
      Moves.onRetry(jobs, outcome.i);
      Pacer.pauseUntil(pacer, clock.at + outcome.afterMs, clock.at);
      Run.rateLimited(run);
      return effects;
    }
  }
}

/** A create batch answered: each job's outcome; created jobs naming no heir are finished per step. */
export function created(m: Model, outcomes: readonly CreateOutcome[]): Effect[] {
  m.run.creating--;
  if (m.run.cancelled) return [];
  // Creates never sent (cached, skipped) give their pacer tokens back.
  const unsent = outcomes.filter((outcome) => outcome.kind === 'cached' || outcome.kind === 'skipped');
  if (unsent.length > 0) Pacer.giveBack(m.pacer, unsent.length, m.clock.at);
  const unpaired: InFlightJob[] = [];
  const effects = outcomes.flatMap((outcome) => onCreate(m, outcome, unpaired));
  return [...effects, ...finishBatches(m, unpaired)];
}

/** A create batch failed for good: a stop keeps its jobs for the next run, else each is rejected. */
export function createLost(m: Model, batch: readonly PendingJob[], lost: Lost | null): Effect[] {
  m.run.creating--;
  if (m.run.cancelled || lost === null) return [];
  const indexes = batch.map(({ job }) => job.i);
  if (lost.stop) Moves.stopWith(m.jobs, lost.stop, lost.message, indexes);
  // Retries are exhausted only for errors the service marks final: reported per job.
  else for (const i of indexes) Moves.onRejected(m.jobs, i, lost.message, 'create_gave_up');
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
  Moves.promoteHeir(jobs, flight.pending.job.i);
  if (heirOutcome?.kind === 'created') Pacer.take(pacer, 1, clock.at);
  if (heirOutcome) return onCreate(m, heirOutcome, unpaired);
  if (flight.heir) Moves.onRetry(jobs, flight.heir.job.i);
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
      jobLost(m, flight.pending.job.i, lostOf(result.failure, result.message));
      // Whether its heir was created is unknown: it is created again under the same key.
      if (flight.heir) effects.push(...handOver(m, flight, null, unfinished));
      continue;
    }
    Clock.observe(m.clock, result.at);
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
  Moves.onFinished(m.jobs, pending.job.i, outcome, m.clock.at);
  if (waitedMs === null) return [];
  Moves.observeWait(m.jobs, waitedMs, pending.job.step);
  return observeLatency(m);
}

/** A finish failed for good: the failure policy's effect (a stop keeps the job for the next run). */
function jobLost(m: Model, i: number, lost: Lost): void {
  if (lost.stop) Moves.stopWith(m.jobs, lost.stop, lost.message, [i]);
  else {
    const failed = { kind: 'failed', creditsUsed: null, message: lost.message } as const;
    Moves.onFinished(m.jobs, i, failed, m.clock.at, 'finish_gave_up');
  }
}

/** A failure of a known kind, as a Lost: what the failure policy says of it. */
export function lostOf(kind: FailureKind, message: string): Lost {
  const effect = effectOf(kind);
  return { stop: effect.kind === 'stop_campaign' ? effect.outcome : null, message };
}

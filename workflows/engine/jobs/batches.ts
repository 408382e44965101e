/**
 * Finish batches (docs/engine.md, "Batched finishes" and "The ceiling"): the predictions of one
 * step waited for by one finishPredictions, heirs included. How a batch is formed,
 * and what a batch that reports after the cancel still holds; reports.ts takes their reports.
 */
import type { FinishBatchItem } from '../../../contract/activities.ts';
import type { InFlightJob } from '../../../contract/campaign.ts';
import type { Effect } from '../effects.ts';
import type { Model } from '../model.ts';
import { onCanceledHeir } from './transitions.ts';

/** One finish-batch per step; each heir named in them is held until its batch reports (cancel waits). */
export function finishBatches(m: Model, flights: readonly InFlightJob[], resumed?: true): Effect[] {
  for (const flight of flights) if (flight.heir) m.run.chaining++;
  return byStep(flights).map((group) => ({
    kind: 'finish-batch' as const,
    flights: group,
    ...(resumed ? { resumed } : {}),
  }));
}

/** Predictions an earlier run handed over: waited for in batches, per step. */
export function resumedBatches(m: Model, flights: readonly InFlightJob[]): Effect[] {
  return finishBatches(m, flights, true);
}

/**
 * A batch that reported after the cancel: heirs it created are canceled upstream by cancel's second
 * pass, and items still running with an heir are waited for again so that pass sees their heirs.
 */
export function canceledBatch(
  m: Model,
  flights: readonly InFlightJob[],
  results: readonly FinishBatchItem[],
): Effect[] {
  const running: InFlightJob[] = [];
  for (const [n, result] of results.entries()) {
    const { heir } = flights[n]!;
    if (!heir) continue;
    if (result.kind === 'pending') running.push(flights[n]!);
    else if (result.kind === 'finished' && result.heir?.kind === 'created') onCanceledHeir(m.jobs, heir);
  }
  return finishBatches(m, running);
}

/** Flights grouped by step, in their order: a step's predictions end about together. */
function byStep(flights: readonly InFlightJob[]): InFlightJob[][] {
  const groups = new Map<number, InFlightJob[]>();
  for (const flight of flights) {
    const group = groups.get(flight.pending.job.step);
    if (group) group.push(flight);
    else groups.set(flight.pending.job.step, [flight]);
  }
  return [...groups.values()];
}

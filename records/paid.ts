/**
 * What a campaign's records say it paid: each prediction once, by job, and the rule for its total
 * in all runs. One place, so `status`, `run`, `report` and `audit` count alike.
 */
import { type Micros, tryParseUsd } from '../api/money.ts';
import type { ManifestEntry } from './manifest-entry.ts';
import { stillUnsaved, type UnsavedRecord } from './unsaved.ts';

/** What each job's takes cost together, by job key: each prediction counted once (a line may repeat one). */
export function paidByJob(
  takes: readonly ManifestEntry[],
  unsaved: readonly UnsavedRecord[] = [],
): Map<string, Micros> {
  const byPrediction = new Map(takes.map((entry) => [entry.prediction_id, entry]));
  const paid = new Map<string, Micros>();
  const add = (key: string, usd: string | null) =>
    paid.set(key, (paid.get(key) ?? 0) + (tryParseUsd(usd) ?? 0));
  for (const { key, credits_used } of byPrediction.values()) add(key, credits_used);
  // Outputs paid for and never saved (records/unsaved.ts).
  for (const record of stillUnsaved(unsaved, byPrediction)) add(record.key, record.credits_used);
  return paid;
}

/**
 * What a campaign has paid in all its runs: every recorded take once (`paid`, from paidByJob) and
 * the charged refusals (`refused`, records/refusals.ts refusalCharges), or what this run paid if
 * more (a take the service charged for but that left no record, a failure). The one rule behind
 * `status`'s and `run`'s "in all runs" (cli/campaign-total.ts) and the report's headline
 * (review/model.ts), so they never disagree.
 */
export function paidInAllRuns(
  paid: ReadonlyMap<string, Micros>,
  thisRun: Micros,
  refused: Micros = 0,
): Micros {
  let recorded = refused;
  for (const usd of paid.values()) recorded += usd;
  return Math.max(thisRun, recorded);
}

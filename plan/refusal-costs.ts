/**
 * What `on_refusal:` may add to a plan's price, for the preflight's and estimate's worst case:
 * every take refused after the service charged for it (a flagged output is paid,
 * docs/service-assumptions.md), so a job of a `retry: N` step may be paid N more times and one of
 * a `fallback:` step once more at the fallback's price. Pure, like review-costs.ts.
 */
import type { Micros } from '../api/money.ts';
import { extraTakes } from './refusal.ts';
import type { PlannedJob, PlannedStep } from './types.ts';

/** Null when no step of the plan says `retry` or `fallback`: nothing to add. */
export function refusalWorstCase(
  jobs: readonly PlannedJob[],
  steps: readonly PlannedStep[],
  priceOf: (job: PlannedJob) => Micros,
): Micros | null {
  const rules = new Map(steps.map((step) => [step.id, step.onRefusal]));
  if (![...rules.values()].some((rule) => extraTakes(rule) > 0)) return null;
  let extra = 0;
  for (const job of jobs) {
    const rule = rules.get(job.step);
    if (rule?.kind === 'retry') extra += rule.times * priceOf(job);
    else if (rule?.kind === 'fallback') extra += job.fallbackUsd ?? priceOf(job);
  }
  return extra;
}

/**
 * Which of a job's derivatives wait for a decision: those of its plan's reviewed derive steps, in
 * the plan's order, the order the campaign input names them in (control/campaign-input.ts,
 * StepInfo.derived). What the workflow reads with a job (`loadJobs`) and what a re-run recalls.
 */

import type { PlannedJob } from '../../plan/types.ts';
import type { PlanHead } from '../../records/plan-store.ts';

/** The ids of the plan's reviewed derive steps; empty for a plan without. */
export function reviewedDeriveSteps(head: Pick<PlanHead, 'deriveSteps'>): ReadonlySet<string> {
  return new Set((head.deriveSteps ?? []).flatMap(({ id, review }) => (review ? [id] : [])));
}

/** The job's reviewed derivatives' keys, as JobRef.derived; nothing when it has none. */
export function reviewedDerivatives(
  job: Pick<PlannedJob, 'derivatives'>,
  reviewed: ReadonlySet<string>,
): { derived?: string[] } {
  if (reviewed.size === 0) return {};
  const derived = (job.derivatives ?? []).filter(({ step }) => reviewed.has(step)).map(({ key }) => key);
  return derived.length > 0 ? { derived } : {};
}

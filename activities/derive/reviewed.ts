/**
 * Which of a job's derivatives wait for a decision: those of its plan's reviewed derive steps, in
 * the plan's order, the order the campaign input names them in (control/campaign-input.ts,
 * StepInfo.derived). What the workflow reads with a job (`loadJobs`) and what a re-run recalls.
 */

import type { Underived } from '../../contract/activities.ts';
import type { PlannedJob } from '../../plan/types.ts';
import type { DerivativeRecord } from '../../records/derivatives.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
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

/**
 * Which of the job's reviewed derivatives (`keys`, as JobRef.derived) failed to be made from this
 * output of the parent: a failure recorded for an earlier take does not count.
 */
export function underivedOf(
  keys: readonly string[] | undefined,
  records: readonly (DerivativeRecord | null)[],
  parent: Pick<ManifestEntry, 'sha256'>,
): { underived?: Underived } {
  const failed = new Set(
    records.flatMap((r) => (r?.state === 'failed' && r.parent.sha256 === parent.sha256 ? [r.key] : [])),
  );
  const places = (keys ?? []).flatMap((key, n) => (failed.has(key) ? [n] : []));
  return places.length > 0 ? { underived: places } : {};
}

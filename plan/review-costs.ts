/**
 * What a plan's review gates do to its price, for the preflight and `estimate`. Apart from the
 * gate itself (plan/review.ts), since it reads whole plans and the plan's types carry the gate.
 */
import type { Micros } from '../api/money.ts';
import type { PlannedJob, PlannedStep } from './types.ts';

export interface ReviewCosts {
  /** The jobs of reviewed steps (their takes before any regeneration). */
  readonly reviewedUsd: Micros;
  /** Everything no reviewer's decision holds back: reviewed jobs and jobs not below one. */
  readonly beforeApprovalsUsd: Micros;
  /** Every job, as if every reviewed job were approved. */
  readonly worstCaseUsd: Micros;
}

/**
 * What review gates make of a plan's price, for the preflight: null without gates. `jobs` lists
 * parents before children (any subset of a plan, e.g. the jobs left to run). `awaiting`: keys of
 * jobs not in `jobs` (made already) whose decision is still to come, so their children wait too.
 */
export function reviewCosts(
  jobs: readonly PlannedJob[],
  steps: readonly Pick<PlannedStep, 'id' | 'review'>[],
  priceOf: (job: PlannedJob) => Micros,
  awaiting: ReadonlySet<string> = new Set(),
): ReviewCosts | null {
  const reviewed = new Set(steps.filter((step) => step.review).map((step) => step.id));
  if (reviewed.size === 0) return null;
  /** Keys of reviewed jobs and of their descendants: their children wait for a decision. */
  const gated = new Set<string>(awaiting);
  let reviewedUsd = 0;
  let heldBackUsd = 0;
  let worstCaseUsd = 0;
  for (const job of jobs) {
    const price = priceOf(job);
    worstCaseUsd += price;
    if (job.parent !== null && gated.has(job.parent)) {
      heldBackUsd += price;
      gated.add(job.key);
    }
    if (reviewed.has(job.step)) {
      if (!gated.has(job.key)) reviewedUsd += price;
      gated.add(job.key);
    }
  }
  return { reviewedUsd, beforeApprovalsUsd: worstCaseUsd - heldBackUsd, worstCaseUsd };
}

/**
 * Where each job's descendants end in a plan, and what they cost: jobs are listed parents first
 * and depth first (plan/expand.ts), so a job's descendants are exactly the indexes between it and
 * its `end`. Review gates hold back that range while a job awaits review (workflows/engine/reviews/reviews.ts).
 */
import type { Micros } from '../api/money.ts';
import type { PlannedJob, PlannedStep } from '../plan/types.ts';

export interface Subtrees {
  readonly end: readonly number[];
  readonly belowUsd: readonly Micros[];
}

/**
 * The jobs as `run` stores them: each job of a reviewed step with descendants carries its
 * `subtree`, so the workers reading the plan by pages know what its gate holds back.
 */
export function withSubtrees(
  steps: readonly PlannedStep[],
  jobs: readonly PlannedJob[],
): readonly PlannedJob[] {
  const reviewed = new Set(steps.filter((step) => step.review).map((step) => step.id));
  if (reviewed.size === 0) return jobs;
  const { end, belowUsd } = subtreesOf(jobs);
  return jobs.map((job, i) =>
    reviewed.has(job.step) && end[i]! > i + 1
      ? { ...job, subtree: { end: end[i]!, belowUsd: belowUsd[i]! } }
      : job,
  );
}

export function subtreesOf(jobs: readonly PlannedJob[]): Subtrees {
  const index = new Map(jobs.map((job, i) => [job.key, i]));
  const size = jobs.map(() => 1);
  const below = jobs.map(() => 0);
  // Children come after their parent: walking back, each job's totals are complete when it is reached.
  for (let i = jobs.length - 1; i >= 0; i--) {
    const job = jobs[i]!;
    const parent = job.parent === null ? undefined : index.get(job.parent);
    if (parent === undefined) continue;
    size[parent]! += size[i]!;
    below[parent]! += below[i]! + (job.usd ?? 0);
  }
  return { end: size.map((n, i) => i + n), belowUsd: below };
}

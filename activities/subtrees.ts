/**
 * Where each job's descendants end in a plan, and what they cost: jobs are listed parents first
 * and depth first (plan/expand.ts), so a job's descendants are exactly the indexes between it and
 * its `end`. Review gates hold back that range while a job awaits review (workflows/state/reviews.ts).
 */
import type { Micros } from '../api/money.ts';
import type { Plan } from '../plan/types.ts';

export interface Subtrees {
  readonly end: readonly number[];
  readonly belowUsd: readonly Micros[];
}

const computed = new WeakMap<Plan, Subtrees>();

export function subtreesOf(plan: Plan): Subtrees {
  const known = computed.get(plan);
  if (known) return known;
  const index = new Map(plan.jobs.map((job, i) => [job.key, i]));
  const size = plan.jobs.map(() => 1);
  const below = plan.jobs.map(() => 0);
  // Children come after their parent: walking back, each job's totals are complete when it is reached.
  for (let i = plan.jobs.length - 1; i >= 0; i--) {
    const job = plan.jobs[i]!;
    const parent = job.parent === null ? undefined : index.get(job.parent);
    if (parent === undefined) continue;
    size[parent]! += size[i]!;
    below[parent]! += below[i]! + (job.usd ?? 0);
  }
  const subtrees = { end: size.map((n, i) => i + n), belowUsd: below };
  computed.set(plan, subtrees);
  return subtrees;
}

/**
 * The whole spec's job limit (`limits.jobs`), checked step by step before a step's matrix is
 * expanded, from the sizes of its axes alone: a spec of 100 steps × 100,000 jobs is refused after
 * a few multiplications instead of being built in memory until the process dies. A step's bound
 * counts its cartesian product before `exclude` (plus one per `include` entry), the same
 * convention as `limits.jobs_per_step`; steps already expanded count their exact jobs.
 */
import { matrixAxes, productSize } from './matrix.ts';
import type { Report } from './report.ts';
import { type CampaignSpec, DEFAULT_JOBS, DEFAULT_JOBS_PER_STEP, type Matrix } from './schema.ts';

/**
 * The most jobs one machine plans: a plan is built whole in memory, about a kilobyte a job, so a
 * spec that raised its own limits to 10^8 ran the planner out of memory. A spec may set its limits
 * up to this; only the person at the machine can raise it (`--max-jobs`).
 */
export const MACHINE_JOBS = 1_000_000;

/**
 * The spec's limits (`limits.jobs_per_step`, `limits.jobs`), each held to `ceiling` (MACHINE_JOBS
 * or `--max-jobs`): a value above it is a problem at its line, and the ceiling is used meanwhile.
 */
export function specLimits(
  spec: Pick<CampaignSpec, 'limits'>,
  ceiling: number,
  report: Report,
): { cap: number; total: JobLimit } {
  const held = (field: 'jobs_per_step' | 'jobs', value: number) => {
    if (value <= ceiling) return value;
    const n = (count: number) => count.toLocaleString('en');
    report(
      ['limits', field],
      `limits.${field} is ${n(value)}, above the ${n(ceiling)} jobs this machine plans; a spec cannot raise it so far: pass --max-jobs ${value} if the machine has the memory (about 1 KB a job)`,
    );
    return ceiling;
  };
  return {
    cap: held('jobs_per_step', spec.limits?.jobs_per_step ?? DEFAULT_JOBS_PER_STEP),
    total: new JobLimit(held('jobs', spec.limits?.jobs ?? DEFAULT_JOBS)),
  };
}

/** The most combinations a matrix can make, computed without making them. */
export function combinationBound(matrix: Matrix | undefined): number {
  const includes = matrix?.include?.length ?? 0;
  if (matrixAxes(matrix).length === 0) return includes > 0 ? includes : 1;
  return productSize(matrix) + includes;
}

export interface StepBound {
  readonly id: string;
  readonly parentJobs: number | null;
  readonly combinations: number;
  readonly repeat: number;
}

export class JobLimit {
  private planned = 0;
  /** Set once the limit is passed: no further step is expanded and no job is built. */
  exceeded = false;

  readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Whether the step may be expanded; otherwise the reason, once (later steps are not expanded either). */
  admit(step: StepBound): { ok: true } | { ok: false; message?: string } {
    if (this.exceeded) return { ok: false };
    const bound = (step.parentJobs ?? 1) * step.combinations * step.repeat;
    if (this.planned + bound <= this.limit) return { ok: true };
    this.exceeded = true;
    const n = (value: number) => value.toLocaleString('en');
    const parts = [
      ...(step.parentJobs === null ? [] : [`${n(step.parentJobs)} parent jobs`]),
      `${n(step.combinations)} combinations`,
      `${step.repeat} ${step.repeat === 1 ? 'variant' : 'variants'}`,
    ];
    return {
      ok: false,
      message: `step "${step.id}" takes the spec past its limit of ${n(this.limit)} jobs: ${n(this.planned)} jobs in the steps before it + up to ${n(bound)} here (${parts.join(' × ')}); raise limits.jobs if you mean it`,
    };
  }

  /** Counts a step's exact jobs once it is expanded, and returns them. */
  add(jobs: number): number {
    this.planned += jobs;
    return jobs;
  }
}

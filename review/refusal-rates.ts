/**
 * Which matrix values the service keeps refusing: for each axis of a step (product, colour, aspect
 * ratio…) and each of its values, how many of the jobs with that value were refused at least once
 * and how many refusals they met. A person reads it to fix the prompt of one value rather than
 * guess; the report and the review page show it under the step (render.ts). Pure.
 */
import type { PlannedJob } from '../plan/types.ts';
import type { RefusalRecord } from '../records/refusals.ts';

export interface RefusalRate {
  readonly axis: string;
  readonly value: string;
  /** Jobs of the step with this value. */
  readonly jobs: number;
  /** Of those, jobs refused at least once (prompt or output). */
  readonly refusedJobs: number;
  /** Refused takes in all. */
  readonly refusals: number;
}

/** Rows for the axes with any refusal, the most refused value first; empty when nothing was refused. */
export function refusalRates(
  jobs: readonly PlannedJob[],
  refusals: ReadonlyMap<string, readonly RefusalRecord[]>,
): RefusalRate[] {
  const rows = new Map<
    string,
    { axis: string; value: string; jobs: number; refusedJobs: number; refusals: number }
  >();
  for (const job of jobs) {
    const met = refusals.get(job.key)?.length ?? 0;
    for (const [axis, raw] of Object.entries(job.vars)) {
      const value = String(raw);
      const id = `${axis}\u0000${value}`;
      const row = rows.get(id) ?? { axis, value, jobs: 0, refusedJobs: 0, refusals: 0 };
      row.jobs++;
      if (met > 0) row.refusedJobs++;
      row.refusals += met;
      rows.set(id, row);
    }
  }
  const refusedAxes = new Set([...rows.values()].filter((row) => row.refusals > 0).map((row) => row.axis));
  return [...rows.values()]
    .filter((row) => refusedAxes.has(row.axis))
    .sort((a, b) => b.refusedJobs / b.jobs - a.refusedJobs / a.jobs || b.refusals - a.refusals);
}

/**
 * The sliding window over the plan: how far the plan has been read (the cursor), the jobs read
 * and not yet submitted, and which jobs have not ended, so their children wait. Parents come
 * before children in the plan, so a child whose parent is still unfinished waits, and a child
 * whose parent has left the window runs (the create activity then finds the parent's output in
 * the manifest, or reports the child skipped).
 */
import type { JobRef, PendingJob } from '../../../contract/campaign.ts';

/**
 * Jobs read ahead of submission: enough to keep every slot fed, never the whole plan. A chained
 * campaign whose parents go first (selection.ts, longestChainsFirst) reads the most: parents then
 * run ahead of their children by up to that many jobs, so none is left for the end (a shorter
 * lookahead left chain-1k slower; each job read costs history, docs/benchmarks.md).
 */
const MIN_LOOKAHEAD = 100;
const MAX_LOOKAHEAD = 2_000;

/** Plain data (the model is one JSON object): the functions below move it. */
export interface WindowState {
  cursor: number;
  waiting: PendingJob[];
  /** Keys of every job read and not ended (waiting, held or in flight): their children wait. */
  readonly unfinished: Record<string, true>;
}

export function openWindow(cursor: number, waiting: readonly PendingJob[]): WindowState {
  const w: WindowState = { cursor, waiting: [...waiting], unfinished: {} };
  for (const { job } of w.waiting) w.unfinished[job.key] = true;
  return w;
}

/** How many more jobs to read from the plan (0 when the lookahead is full or the plan is read). */
export function wanted(w: WindowState, jobCount: number, maxInFlight: number, parentsFirst = false): number {
  const lookahead = parentsFirst
    ? MAX_LOOKAHEAD
    : Math.min(MAX_LOOKAHEAD, Math.max(MIN_LOOKAHEAD, 4 * maxInFlight));
  return Math.max(0, Math.min(jobCount - w.cursor, lookahead - w.waiting.length));
}

/** Jobs read from the plan; `read` counts those left out too (review gates hold them back). */
export function admit(w: WindowState, jobs: readonly JobRef[], read = jobs.length): void {
  for (const job of jobs) {
    w.waiting.push({ job, regen: 0 });
    w.unfinished[job.key] = true;
  }
  w.cursor += read;
}

/** Jobs read again from the plan behind the cursor (an approval's descendants): first in line. */
export function readmit(w: WindowState, jobs: readonly JobRef[]): void {
  for (const job of jobs.toReversed()) putBack(w, { job, regen: 0 });
}

/** Waiting jobs with plan indexes in (from, end) leave the window: a review holds them back. */
export function park(w: WindowState, from: number, end: number): void {
  w.waiting = w.waiting.filter(({ job }) => {
    const parked = job.i > from && job.i < end;
    if (parked) delete w.unfinished[job.key];
    return !parked;
  });
}

/** A job that goes again (rate limited, regenerated): first in line. */
export function putBack(w: WindowState, pending: PendingJob): void {
  w.waiting.unshift(pending);
  w.unfinished[pending.job.key] = true;
}

/** True while the job's parent has not ended. */
export function parentUnfinished(w: WindowState, job: JobRef): boolean {
  return job.parent !== null && w.unfinished[job.parent] === true;
}

/** A job leaves the waiting list to be created (or reserved as an heir). */
export function hold(w: WindowState, job: JobRef): void {
  w.unfinished[job.key] = true;
}

/** A held job ended (or went back to waiting through putBack). */
export function end(w: WindowState, job: JobRef): void {
  delete w.unfinished[job.key];
}

export function unfinishedHas(w: WindowState, key: string): boolean {
  return w.unfinished[key] === true;
}

export function isRead(w: WindowState, jobCount: number): boolean {
  return w.cursor >= jobCount && w.waiting.length === 0;
}

/**
 * The sliding window over the plan: how far the plan has been read (the cursor), the jobs read
 * and not yet submitted, and which jobs have not ended, so their children wait. Parents come
 * before children in the plan, so a child whose parent is still unfinished waits, and a child
 * whose parent has left the window runs (the create activity then finds the parent's output in
 * the manifest, or reports the child skipped).
 */
import type { JobRef, PendingJob } from '../../contract/campaign.ts';

/**
 * Jobs read ahead of submission: enough to keep every slot fed, never the whole plan. A chained
 * campaign whose parents go first (selection.ts, longestChainsFirst) reads the most: parents then
 * run ahead of their children by up to that many jobs, so none is left for the end (chain-1k:
 * 44.4 s with 4 × C read ahead, 42.1 s with the most; each job read is ~200 bytes of history).
 */
const MIN_LOOKAHEAD = 100;
const MAX_LOOKAHEAD = 2_000;

export class Window {
  cursor: number;
  waiting: PendingJob[];
  /** Keys of every job read and not ended (waiting, held or in flight): their children wait. */
  private readonly unfinished = new Set<string>();

  constructor(cursor: number, waiting: readonly PendingJob[]) {
    this.cursor = cursor;
    this.waiting = [...waiting];
    for (const { job } of this.waiting) this.unfinished.add(job.key);
  }

  /** How many more jobs to read from the plan (0 when the lookahead is full or the plan is read). */
  wanted(jobCount: number, maxInFlight: number, parentsFirst = false): number {
    const lookahead = parentsFirst
      ? MAX_LOOKAHEAD
      : Math.min(MAX_LOOKAHEAD, Math.max(MIN_LOOKAHEAD, 4 * maxInFlight));
    return Math.max(0, Math.min(jobCount - this.cursor, lookahead - this.waiting.length));
  }

  /** Jobs read from the plan; `read` counts those left out too (review gates hold them back). */
  admit(jobs: readonly JobRef[], read = jobs.length): void {
    for (const job of jobs) {
      this.waiting.push({ job, regen: 0 });
      this.unfinished.add(job.key);
    }
    this.cursor += read;
  }

  /** Jobs read again from the plan behind the cursor (an approval's descendants): first in line. */
  readmit(jobs: readonly JobRef[]): void {
    for (const job of jobs.toReversed()) this.putBack({ job, regen: 0 });
  }

  /** Waiting jobs with plan indexes in (from, end) leave the window: a review holds them back. */
  park(from: number, end: number): void {
    this.waiting = this.waiting.filter(({ job }) => {
      const parked = job.i > from && job.i < end;
      if (parked) this.unfinished.delete(job.key);
      return !parked;
    });
  }

  /** A job that goes again (rate limited, regenerated): first in line. */
  putBack(pending: PendingJob): void {
    this.waiting.unshift(pending);
    this.unfinished.add(pending.job.key);
  }

  /** True while the job's parent has not ended. */
  parentUnfinished(job: JobRef): boolean {
    return job.parent !== null && this.unfinished.has(job.parent);
  }

  /** A job leaves the waiting list to be created (or reserved as an heir). */
  hold(job: JobRef): void {
    this.unfinished.add(job.key);
  }

  /** A held job ended (or went back to waiting through putBack). */
  end(job: JobRef): void {
    this.unfinished.delete(job.key);
  }

  unfinishedHas(key: string): boolean {
    return this.unfinished.has(key);
  }

  isRead(jobCount: number): boolean {
    return this.cursor >= jobCount && this.waiting.length === 0;
  }
}

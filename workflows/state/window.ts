/**
 * The sliding window over the plan: how far the plan has been read (the cursor), the jobs read
 * and not yet submitted, and which jobs have not ended, so their children wait. Parents come
 * before children in the plan, so a child whose parent is still unfinished waits, and a child
 * whose parent has left the window runs (the create activity then finds the parent's output in
 * the manifest, or reports the child skipped).
 */
import type { JobRef, PendingJob } from '../../contract/campaign.ts';

/** Jobs read ahead of submission: enough to keep every slot fed, never the whole plan. */
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
  wanted(jobCount: number, maxInFlight: number): number {
    const lookahead = Math.min(MAX_LOOKAHEAD, Math.max(MIN_LOOKAHEAD, 4 * maxInFlight));
    return Math.max(0, Math.min(jobCount - this.cursor, lookahead - this.waiting.length));
  }

  admit(jobs: readonly JobRef[]): void {
    for (const job of jobs) {
      this.waiting.push({ job, regen: 0 });
      this.unfinished.add(job.key);
    }
    this.cursor += jobs.length;
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

  isRead(jobCount: number): boolean {
    return this.cursor >= jobCount && this.waiting.length === 0;
  }
}

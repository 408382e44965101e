/**
 * What happened to the campaign's jobs, per step, for progress and the final summary: counts by
 * outcome, what each step paid, the most recent failures with their reasons, and the measured
 * prediction latency. Each job is counted under one outcome at a time, so no outcome passes the
 * plan: a retake takes its job back out of the outcome its earlier take was counted under.
 */
import type { Micros } from '../../api/money.ts';
import type { Failure, JobRef, StepCounts, StepInfo } from '../../contract/campaign.ts';
import { noCounts } from '../../contract/no-counts.ts';

const MAX_RECENT_FAILURES = 20;

/** Counts named for what happened, beside the outcomes (the search attributes list each one met). */
export const NAMED_COUNTS = [
  'refused',
  'timed_out',
  'download_failed',
  'download_stalled',
  'outputs_expired',
  'links_refreshed',
] as const;

export type NamedCount = (typeof NAMED_COUNTS)[number];

/** Outcomes counted in every run; `refused` and `timed_out` are absent in counts carried by older versions. */
type Counted = Exclude<keyof StepCounts, 'refused' | 'timed_out'>;

export class Tally {
  readonly counts: StepCounts[];
  readonly recentFailures: Failure[];
  /** Mean wait of a prediction (created → ended), ms, smoothed; null until one has ended. */
  latencyMs: number | null;
  /** The same per step (an image and a video differ a hundredfold); null until one has ended. */
  readonly stepLatencyMs: (number | null)[];
  /** Paid per step in this run, every take and attempt the service charged included. */
  readonly spent: Micros[];

  private readonly steps: readonly StepInfo[];

  constructor(
    steps: readonly StepInfo[],
    carried?: {
      counts: readonly StepCounts[];
      recentFailures: readonly Failure[];
      latencyMs: number | null;
      stepLatencyMs?: readonly (number | null)[] | undefined;
      stepSpent?: readonly Micros[] | undefined;
    },
  ) {
    this.steps = steps;

    this.counts = carried ? carried.counts.map((c) => ({ ...noCounts(), ...c })) : steps.map(noCounts);
    this.recentFailures = [...(carried?.recentFailures ?? [])];
    this.latencyMs = carried?.latencyMs ?? null;
    this.stepLatencyMs = steps.map((_, step) => carried?.stepLatencyMs?.[step] ?? null);
    this.spent = steps.map((_, step) => carried?.stepSpent?.[step] ?? 0);
  }

  count(step: number, outcome: Counted): void {
    this.counts[step]![outcome]++;
  }

  /**
   * A job that ended without output for a reason of its own (the service refused its content, or
   * it ran past its deadline): counted under it, and listed with the recent failures, so status
   * and the pages say which job and why.
   */
  end(job: JobRef, outcome: 'refused' | 'timed_out', message: string): void {
    this.note(job.step, outcome);
    this.remember(job, `${outcome === 'refused' ? 'refused' : 'timed out'}: ${message}`);
  }

  /** One more of a named outcome that older memos lack (StepCounts: download_failed, …). */
  note(step: number, outcome: NamedCount): void {
    const counts = this.counts[step]!;
    counts[outcome] = (counts[outcome] ?? 0) + 1;
  }

  /** A new take of a job whose take was counted under `was`: it is under way again, an extra take. */
  retake(step: number, was: 'succeeded' | 'cached'): void {
    const counts = this.counts[step]!;
    // Never below 0, even for a take counted by a version that left it counted.
    if (counts[was] > 0) counts[was]--;
    counts.regenerated++;
  }

  pay(step: number, usd: Micros): void {
    this.spent[step]! += usd;
  }

  fail(job: JobRef, message: string): void {
    this.counts[job.step]!.failed++;
    this.remember(job, message);
  }

  private remember(job: JobRef, message: string): void {
    this.recentFailures.push({ job: job.name, step: this.steps[job.step]!.id, message });
    if (this.recentFailures.length > MAX_RECENT_FAILURES) this.recentFailures.shift();
  }

  observeWait(ms: number, step: number): void {
    this.latencyMs = smooth(this.latencyMs, ms);
    this.stepLatencyMs[step] = smooth(this.stepLatencyMs[step] ?? null, ms);
  }

  /** Jobs that reached an end (created predictions and regenerations are not ends). */
  finished(): number {
    return this.counts.reduce(
      (n, c) => n + c.succeeded + c.cached + c.failed + c.skipped + (c.refused ?? 0) + (c.timed_out ?? 0),
      0,
    );
  }
}

function smooth(mean: number | null, sample: number): number {
  return mean === null ? sample : mean + (sample - mean) * 0.1;
}

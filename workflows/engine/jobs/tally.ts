/**
 * What happened to the campaign's jobs, per step, for progress and the final summary: counts by
 * outcome, what each step paid, the most recent failures with their reasons, and the measured
 * prediction latency. Each job is counted under one outcome at a time, so no outcome passes the
 * plan: a retake takes its job back out of the outcome its earlier take was counted under.
 */
import type { Micros } from '../../../api/money.ts';
import type { Failure, JobRef, StepCounts, StepInfo } from '../../../contract/campaign.ts';
import { noCounts } from '../../../contract/no-counts.ts';

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

/** What a run carried of its tally (CarriedState), if anything. */
export interface CarriedTally {
  counts: readonly StepCounts[];
  recentFailures: readonly Failure[];
  latencyMs: number | null;
  stepLatencyMs?: readonly (number | null)[] | undefined;
  stepSpent?: readonly Micros[] | undefined;
}

/** Plain data (the model is one JSON object): the functions below move it. */
export interface TallyState {
  readonly counts: StepCounts[];
  readonly recentFailures: Failure[];
  /** Mean wait of a prediction (created → ended), ms, smoothed; null until one has ended. */
  latencyMs: number | null;
  /** The same per step (an image and a video differ a hundredfold); null until one has ended. */
  readonly stepLatencyMs: (number | null)[];
  /** Paid per step in this run, every take and attempt the service charged included. */
  readonly spent: Micros[];
}

export function newTally(steps: readonly StepInfo[], carried?: CarriedTally): TallyState {
  return {
    counts: carried ? carried.counts.map((c) => ({ ...noCounts(), ...c })) : steps.map(noCounts),
    recentFailures: [...(carried?.recentFailures ?? [])],
    latencyMs: carried?.latencyMs ?? null,
    stepLatencyMs: steps.map((_, step) => carried?.stepLatencyMs?.[step] ?? null),
    spent: steps.map((_, step) => carried?.stepSpent?.[step] ?? 0),
  };
}

export function count(t: TallyState, step: number, outcome: Counted): void {
  t.counts[step]![outcome]++;
}

/**
 * A job that ended without output for a reason of its own (the service refused its content, or
 * it ran past its deadline): counted under it, and listed with the recent failures, so status
 * and the pages say which job and why.
 */
export function end(
  t: TallyState,
  steps: readonly StepInfo[],
  job: JobRef,
  outcome: 'refused' | 'timed_out',
  message: string,
): void {
  note(t, job.step, outcome);
  remember(t, steps, job, `${outcome === 'refused' ? 'refused' : 'timed out'}: ${message}`);
}

/** One more of a named outcome that older memos lack (StepCounts: download_failed, …). */
export function note(t: TallyState, step: number, outcome: NamedCount): void {
  const counts = t.counts[step]!;
  counts[outcome] = (counts[outcome] ?? 0) + 1;
}

/** A new take of a job whose take was counted under `was`: it is under way again, an extra take. */
export function retake(t: TallyState, step: number, was: 'succeeded' | 'cached'): void {
  const counts = t.counts[step]!;
  // Never below 0, even for a take counted by a version that left it counted.
  if (counts[was] > 0) counts[was]--;
  counts.regenerated++;
}

export function pay(t: TallyState, step: number, usd: Micros): void {
  t.spent[step]! += usd;
}

export function fail(t: TallyState, steps: readonly StepInfo[], job: JobRef, message: string): void {
  t.counts[job.step]!.failed++;
  remember(t, steps, job, message);
}

function remember(t: TallyState, steps: readonly StepInfo[], job: JobRef, message: string): void {
  t.recentFailures.push({ job: job.name, step: steps[job.step]!.id, message });
  if (t.recentFailures.length > MAX_RECENT_FAILURES) t.recentFailures.shift();
}

export function observeWait(t: TallyState, ms: number, step: number): void {
  t.latencyMs = smooth(t.latencyMs, ms);
  t.stepLatencyMs[step] = smooth(t.stepLatencyMs[step] ?? null, ms);
}

function smooth(mean: number | null, sample: number): number {
  return mean === null ? sample : mean + (sample - mean) * 0.1;
}

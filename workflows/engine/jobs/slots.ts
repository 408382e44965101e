/**
 * The service slots this campaign holds: predictions being created or in flight (the window the
 * campaign's concurrency limits), each step's share of them, and the heirs named to take a slot
 * over the moment their predecessor ends (docs/engine.md, "Heirs").
 */
import type { Micros } from '../../../api/money.ts';
import type { InFlightJob, PendingJob, StepInfo } from '../../../contract/campaign.ts';

/** Carried with a prediction an earlier run paid for (InFlightJob.paidBefore); absent otherwise. */
export type PaidBefore = { readonly paidBefore: true } | undefined;

interface ActiveJob {
  readonly pending: PendingJob;
  predictionId: string | null;
  /** Worker clock when the service created it (0 until then). */
  startedAt: number;
  /** An earlier run paid for its prediction (InFlightJob.paidBefore). */
  paidBefore: boolean;
  /** When it took its slot (SlotsState.taken): the jobs in flight are listed in that order. */
  readonly seq: number;
}

/** Plain data (the model is one JSON object): the functions below move it. */
export interface SlotsState {
  /** Jobs being created or in flight, by plan index. */
  readonly active: Record<number, ActiveJob>;
  /** How many jobs `active` holds: every pick reads it. */
  activeCount: number;
  /** Slots taken so far: each active job's `seq`, so lists of them keep the order they came in. */
  taken: number;
  /**
   * Heirs by the job whose finish creates them: held (budget, step slot, children wait) but not
   * counted in the window until their predecessor ends and hands them its slot.
   */
  heirs: Record<number, PendingJob>;
  /** Jobs held per step (active and heirs): a step's own `concurrency` caps it. */
  readonly perStep: number[];
}

export function emptySlots(steps: readonly StepInfo[]): SlotsState {
  return { active: {}, activeCount: 0, taken: 0, heirs: {}, perStep: steps.map(() => 0) };
}

/** Slots the step has left under its own `concurrency` (Infinity when it has none). */
export function stepRoom(s: SlotsState, steps: readonly StepInfo[], step: number): number {
  return (steps[step]!.concurrency ?? Number.POSITIVE_INFINITY) - s.perStep[step]!;
}

/** A job is held: it takes a slot of its step. */
export function take(s: SlotsState, pending: PendingJob): void {
  s.perStep[pending.job.step]!++;
}

/** A held job lets its step slot go. */
export function give(s: SlotsState, pending: PendingJob): void {
  s.perStep[pending.job.step]!--;
}

export function occupy(
  s: SlotsState,
  pending: PendingJob,
  predictionId: string | null = null,
  startedAt = 0,
  paid?: PaidBefore,
): void {
  // A job already active keeps its place in the order (as a Map's set did).
  const was = s.active[pending.job.i];
  if (!was) s.activeCount++;
  const seq = was ? was.seq : s.taken++;
  s.active[pending.job.i] = { pending, predictionId, startedAt, paidBefore: paid !== undefined, seq };
}

export function created(
  s: SlotsState,
  i: number,
  predictionId: string,
  at: number,
  paid?: PaidBefore,
): PendingJob {
  const active = s.active[i]!;
  active.predictionId = predictionId;
  active.startedAt = at;
  active.paidBefore = paid !== undefined;
  return active.pending;
}

/** When job `i`'s prediction was created, worker clock (0: not yet). */
export function createdAt(s: SlotsState, i: number): number {
  return s.active[i]?.startedAt ?? 0;
}

export function pendingOf(s: SlotsState, i: number): PendingJob {
  const active = s.active[i];
  if (!active) throw new Error(`job ${i} is not in flight`);
  return active.pending;
}

/** The job leaves the window; its step slot is given back by the caller (see CampaignState). */
export function vacate(s: SlotsState, i: number): PendingJob {
  const pending = pendingOf(s, i);
  delete s.active[i];
  s.activeCount--;
  return pending;
}

/** The active jobs, in the order they took their slots. */
function activeJobs(s: SlotsState): ActiveJob[] {
  return Object.values(s.active).sort((a, b) => a.seq - b.seq);
}

export function activeIndexes(s: SlotsState): number[] {
  return activeJobs(s).map(({ pending }) => pending.job.i);
}

export function nameHeir(s: SlotsState, of: number, heir: PendingJob): void {
  s.heirs[of] = heir;
}

/** Job `of` has ended: its heir, if any, now holds the slot. */
export function promoteHeir(s: SlotsState, of: number): void {
  const heir = s.heirs[of];
  if (!heir) return;
  delete s.heirs[of];
  occupy(s, heir);
}

/** Every heir, forgotten: the campaign was canceled before they took their slots. */
export function dropHeirs(s: SlotsState): PendingJob[] {
  const dropped = Object.values(s.heirs);
  s.heirs = {};
  return dropped;
}

/** Jobs whose prediction exists and is being waited on, with their heirs. */
export function inFlight(s: SlotsState): InFlightJob[] {
  return activeJobs(s).flatMap(({ pending, predictionId, startedAt, paidBefore }) =>
    predictionId === null
      ? []
      : [
          {
            pending,
            predictionId,
            startedAt,
            heir: s.heirs[pending.job.i] ?? null,
            ...(paidBefore && { paidBefore: true as const }),
          },
        ],
  );
}

/** Price of the predictions created and not ended: what is at the service now (jobs being created are not). */
export function inFlightUsd(s: SlotsState): Micros {
  let usd = 0;
  for (const { pending, predictionId } of Object.values(s.active))
    if (predictionId !== null) usd += pending.job.usd;
  return usd;
}

/** The predictions at the service: each one's step and when it was created (worker clock). */
export function atService(s: SlotsState): { step: number; createdAt: number }[] {
  return Object.values(s.active).flatMap(({ pending, predictionId, startedAt }) =>
    predictionId === null ? [] : [{ step: pending.job.step, createdAt: startedAt }],
  );
}

/** Running jobs and held heirs per step, for progress. */
export function countByStep(s: SlotsState): { running: number[]; heirs: number[] } {
  const running = s.perStep.map(() => 0);
  for (const { pending } of Object.values(s.active)) running[pending.job.step]!++;
  const heirs = s.perStep.map(() => 0);
  for (const { job } of Object.values(s.heirs)) heirs[job.step]!++;
  return { running, heirs };
}

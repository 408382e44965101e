/**
 * The service slots this campaign holds: predictions being created or in flight (the window the
 * campaign's concurrency limits), each step's share of them, and the heirs named to take a slot
 * over the moment their predecessor ends (docs/engine.md, "Heirs").
 */
import type { Micros } from '../../api/money.ts';
import type { InFlightJob, PendingJob, StepInfo } from '../../contract/campaign.ts';

/** Carried with a prediction an earlier run paid for (InFlightJob.paidBefore); absent otherwise. */
export type PaidBefore = { readonly paidBefore: true } | undefined;

interface ActiveJob {
  readonly pending: PendingJob;
  predictionId: string | null;
  /** Worker clock when the service created it (0 until then). */
  startedAt: number;
  paid?: PaidBefore;
}

export class Slots {
  private readonly active = new Map<number, ActiveJob>();
  /**
   * Heirs by the job whose finish creates them: held (budget, step slot, children wait) but not
   * counted in the window until their predecessor ends and hands them its slot.
   */
  private readonly heirs = new Map<number, PendingJob>();
  /** Jobs held per step (active and heirs): a step's own `concurrency` caps it. */
  private readonly perStep: number[];

  private readonly steps: readonly StepInfo[];

  constructor(steps: readonly StepInfo[]) {
    this.steps = steps;

    this.perStep = steps.map(() => 0);
  }

  get activeCount(): number {
    return this.active.size;
  }

  /** Slots the step has left under its own `concurrency` (Infinity when it has none). */
  stepRoom(step: number): number {
    return (this.steps[step]!.concurrency ?? Number.POSITIVE_INFINITY) - this.perStep[step]!;
  }

  /** A job is held: it takes a slot of its step. */
  take(pending: PendingJob): void {
    this.perStep[pending.job.step]!++;
  }

  /** A held job lets its step slot go. */
  give(pending: PendingJob): void {
    this.perStep[pending.job.step]!--;
  }

  occupy(pending: PendingJob, predictionId: string | null = null, startedAt = 0, paid?: PaidBefore): void {
    this.active.set(pending.job.i, { pending, predictionId, startedAt, paid });
  }

  created(i: number, predictionId: string, at: number, paid?: PaidBefore): PendingJob {
    const active = this.active.get(i)!;
    active.predictionId = predictionId;
    active.startedAt = at;
    active.paid = paid;
    return active.pending;
  }

  pendingOf(i: number): PendingJob {
    const active = this.active.get(i);
    if (!active) throw new Error(`job ${i} is not in flight`);
    return active.pending;
  }

  /** The job leaves the window; its step slot is given back by the caller (see CampaignState). */
  vacate(i: number): PendingJob {
    const pending = this.pendingOf(i);
    this.active.delete(i);
    return pending;
  }

  activeIndexes(): number[] {
    return [...this.active.keys()];
  }

  nameHeir(of: number, heir: PendingJob): void {
    this.heirs.set(of, heir);
  }

  /** Job `of` has ended: its heir, if any, now holds the slot. */
  promoteHeir(of: number): void {
    const heir = this.heirs.get(of);
    if (!heir) return;
    this.heirs.delete(of);
    this.occupy(heir);
  }

  /** Every heir, forgotten: the campaign was canceled before they took their slots. */
  dropHeirs(): PendingJob[] {
    const dropped = [...this.heirs.values()];
    this.heirs.clear();
    return dropped;
  }

  /** Jobs whose prediction exists and is being waited on, with their heirs. */
  inFlight(): InFlightJob[] {
    return [...this.active.values()].flatMap(({ pending, predictionId, startedAt, paid }) =>
      predictionId === null
        ? []
        : [{ pending, predictionId, startedAt, heir: this.heirs.get(pending.job.i) ?? null, ...paid }],
    );
  }

  /** Price of the predictions created and not ended: what is at the service now (jobs being created are not). */
  inFlightUsd(): Micros {
    let usd = 0;
    for (const { pending, predictionId } of this.active.values())
      if (predictionId !== null) usd += pending.job.usd;
    return usd;
  }

  /** Running jobs and held heirs per step, for progress. */
  countByStep(): { running: number[]; heirs: number[] } {
    const running = this.steps.map(() => 0);
    for (const { pending } of this.active.values()) running[pending.job.step]!++;
    const heirs = this.steps.map(() => 0);
    for (const { job } of this.heirs.values()) heirs[job.step]!++;
    return { running, heirs };
  }
}

/**
 * The campaign's scheduling state, as plain deterministic code (no Temporal APIs), so it can be
 * unit-tested on its own and carried across continue-as-new. It holds a sliding window over the
 * plan: jobs waiting to be submitted and jobs in flight, never the whole plan.
 *
 * Parents come before children in the plan, so a child whose parent is still in the window waits;
 * a child whose parent has left the window runs, and the create activity finds the parent's output
 * in the manifest (or reports the child skipped when there is none).
 */
import type { Micros } from '../api/money.ts';
import type {
  CampaignOutcome,
  CampaignProgress,
  CarriedState,
  Failure,
  FinishOutcome,
  InFlightJob,
  JobRef,
  PendingJob,
  ServiceLimits,
  StepCounts,
  StepInfo,
} from './types.ts';

const MAX_RECENT_FAILURES = 20;

interface ActiveJob {
  readonly pending: PendingJob;
  predictionId: string | null;
  /** Worker clock when the service created it (0 until then). */
  startedAt: number;
}

function emptyCounts(): StepCounts {
  return { succeeded: 0, cached: 0, failed: 0, skipped: 0, canceled: 0, created: 0, regenerated: 0 };
}

export class CampaignState {
  cursor: number;
  private waiting: PendingJob[];
  private readonly active = new Map<number, ActiveJob>();
  /**
   * Heirs by the job whose finish creates them: held (budget, step slot, children wait) but not
   * counted in the window until their predecessor ends and hands them its slot.
   */
  private readonly heirs = new Map<number, PendingJob>();
  /** Keys of every job in the window (waiting or active): their children must wait. */
  private readonly windowKeys = new Set<string>();
  private readonly stepActive: number[];
  readonly counts: StepCounts[];
  spent: Micros;
  committed: Micros = 0;
  stopReason: CampaignOutcome | null;
  recentFailures: Failure[];
  limits: ServiceLimits;
  /** Mean wait of a prediction (created → ended), ms, smoothed; null until one has ended. */
  latencyMs: number | null;
  readonly startedAt: number;
  readonly runs: number;

  constructor(
    private readonly steps: readonly StepInfo[],
    private readonly jobCount: number,
    private readonly concurrency: number,
    private readonly budget: Micros | null,
    init: { carried?: Omit<CarriedState, 'clock'> | undefined; limits: ServiceLimits; now: number },
  ) {
    const carried = init.carried;
    this.cursor = carried?.cursor ?? 0;
    this.waiting = [...(carried?.waiting ?? [])];
    for (const { job } of this.waiting) this.windowKeys.add(job.key);
    this.counts = carried ? carried.counts.map((c) => ({ ...c })) : steps.map(emptyCounts);
    this.stepActive = steps.map(() => 0);
    for (const { pending, predictionId, startedAt, heir } of carried?.inFlight ?? []) {
      this.activate(pending, predictionId, startedAt);
      if (heir) {
        this.hold(heir);
        this.heirs.set(pending.job.i, heir);
      }
    }
    this.spent = carried?.spent ?? 0;
    this.stopReason = carried?.stopReason ?? null;
    this.recentFailures = [...(carried?.recentFailures ?? [])];
    this.limits = carried?.limits ?? init.limits;
    this.latencyMs = carried?.latencyMs ?? null;
    this.startedAt = carried?.startedAt ?? init.now;
    this.runs = (carried?.runs ?? 0) + 1;
  }

  /** Predictions in flight at once: the campaign's own limit within the service's. */
  get maxInFlight(): number {
    return Math.max(1, Math.min(this.concurrency, this.limits.maxInFlight));
  }

  /** How many more jobs the window wants from the plan (0 when full, finished or stopped). */
  wanted(): number {
    if (this.stopReason) return 0;
    const lookahead = Math.min(2_000, Math.max(100, 4 * this.maxInFlight));
    return Math.max(0, Math.min(this.jobCount - this.cursor, lookahead - this.waiting.length));
  }

  admit(jobs: readonly JobRef[]): void {
    for (const job of jobs) {
      this.waiting.push({ job, regen: 0 });
      this.windowKeys.add(job.key);
    }
    this.cursor += jobs.length;
  }

  /**
   * Takes up to `max` jobs that may be submitted now: parent done, campaign and step slots free,
   * and their price fits the budget next to what is spent and committed. The first job that does
   * not fit the budget stops submission for good: the campaign ends once in-flight work lands.
   */
  pick(max: number): PendingJob[] {
    const picked = this.take(max, true);
    for (const pending of picked)
      this.active.set(pending.job.i, { pending, predictionId: null, startedAt: 0 });
    return picked;
  }

  /**
   * Reserves the job that in-flight job `i` creates as soon as it ends (its heir), under the same
   * rules as pick but for the window: the heir takes over `i`'s slot rather than a new one.
   */
  reserveHeir(i: number): PendingJob | null {
    const [heir] = this.take(1, false);
    if (!heir) return null;
    this.heirs.set(i, heir);
    return heir;
  }

  /** Job `i` has ended and its heir's create was attempted: the heir now holds the slot. */
  promoteHeir(i: number): void {
    const heir = this.heirs.get(i);
    if (!heir) return;
    this.heirs.delete(i);
    this.active.set(heir.job.i, { pending: heir, predictionId: null, startedAt: 0 });
  }

  /** A heir created while the campaign was being canceled, and canceled upstream with it. */
  onCanceledHeir(heir: PendingJob): void {
    const counts = this.counts[heir.job.step]!;
    counts.created++;
    counts.canceled++;
  }

  /** The jobs pick and reserveHeir hand out, held (see hold) but not yet in the window. */
  private take(max: number, countWindow: boolean): PendingJob[] {
    const picked: PendingJob[] = [];
    if (this.stopReason) return picked;
    const rest: PendingJob[] = [];
    for (let index = 0; index < this.waiting.length; index++) {
      const pending = this.waiting[index]!;
      const windowFull = countWindow && this.active.size + picked.length >= this.maxInFlight;
      if (picked.length >= max || windowFull || this.stopReason) {
        rest.push(...this.waiting.slice(index));
        break;
      }
      const { job } = pending;
      const stepLimit = this.steps[job.step]!.concurrency ?? Number.POSITIVE_INFINITY;
      if (
        (job.parent !== null && this.windowKeys.has(job.parent)) ||
        this.stepActive[job.step]! >= stepLimit
      ) {
        rest.push(pending);
        continue;
      }
      if (this.budget !== null && this.spent + this.committed + job.usd > this.budget) {
        this.stopReason = 'budget_reached';
        rest.push(...this.waiting.slice(index));
        break;
      }
      this.hold(pending);
      picked.push(pending);
    }
    this.waiting = rest;
    return picked;
  }

  observeWait(ms: number): void {
    this.latencyMs = this.latencyMs === null ? ms : this.latencyMs + (ms - this.latencyMs) * 0.1;
  }

  activeCount(): number {
    return this.active.size;
  }

  waitingCount(): number {
    return this.waiting.length;
  }

  /** True when nothing is left to do: every job ran, or submission stopped and flights landed. */
  isDone(): boolean {
    if (this.active.size > 0) return false;
    return this.stopReason !== null || (this.cursor >= this.jobCount && this.waiting.length === 0);
  }

  pendingOf(i: number): PendingJob {
    const active = this.active.get(i);
    if (!active) throw new Error(`job ${i} is not in flight`);
    return active.pending;
  }

  onCreated(i: number, predictionId: string, at: number): void {
    const active = this.active.get(i)!;
    active.predictionId = predictionId;
    active.startedAt = at;
    this.counts[active.pending.job.step]!.created++;
  }

  onCached(i: number): void {
    this.counts[this.release(i).job.step]!.cached++;
  }

  onSkipped(i: number): void {
    this.counts[this.release(i).job.step]!.skipped++;
  }

  onRejected(i: number, code: string, message: string): void {
    const { job } = this.release(i);
    this.counts[job.step]!.failed++;
    this.recordFailure(job, message);
    if (code === 'INSUFFICIENT_CREDITS' && !this.stopReason) this.stopReason = 'balance_exhausted';
  }

  /** Rate limited before creation: back to the front of the queue, nothing committed. */
  onRetry(i: number): void {
    const pending = this.release(i);
    this.putBack(pending);
  }

  onFinished(i: number, outcome: FinishOutcome): void {
    const active = this.active.get(i)!;
    const { job, regen } = active.pending;
    const counts = this.counts[job.step]!;
    this.release(i);
    if (outcome.kind === 'canceled') {
      counts.canceled++;
      return;
    }
    // The service's own figure when it gives one; else the price we committed.
    this.spent += outcome.creditsUsed ?? (outcome.kind === 'succeeded' ? job.usd : 0);
    if (outcome.kind === 'succeeded') {
      counts.succeeded++;
      return;
    }
    if (regen < this.steps[job.step]!.retries && !this.stopReason) {
      counts.regenerated++;
      this.putBack({ job, regen: regen + 1 });
      return;
    }
    counts.failed++;
    this.recordFailure(job, outcome.message);
  }

  /** The campaign was canceled: every job in flight ends as canceled, waiting ones stay unstarted. */
  cancelAll(): void {
    for (const i of [...this.active.keys()]) this.counts[this.release(i).job.step]!.canceled++;
    for (const heir of this.heirs.values()) this.unhold(heir);
    this.heirs.clear();
    this.stopReason = 'canceled';
  }

  /** Jobs whose prediction exists and is being waited on. */
  inFlight(): InFlightJob[] {
    return [...this.active.values()].flatMap(({ pending, predictionId, startedAt }) =>
      predictionId === null
        ? []
        : [{ pending, predictionId, startedAt, heir: this.heirs.get(pending.job.i) ?? null }],
    );
  }

  /**
   * The state to carry, but for the campaign clock, which the workflow adds. Only between creates:
   * a job still being created has no prediction id to hand over.
   */
  carry(): Omit<CarriedState, 'clock'> {
    const inFlight = this.inFlight();
    if (inFlight.length < this.active.size) throw new Error('continue-as-new with a create under way');
    return {
      cursor: this.cursor,
      waiting: this.waiting,
      inFlight,
      counts: this.counts,
      spent: this.spent,
      stopReason: this.stopReason,
      recentFailures: this.recentFailures,
      startedAt: this.startedAt,
      runs: this.runs,
      limits: this.limits,
      latencyMs: this.latencyMs,
    };
  }

  progress(campaign: string, now: number): CampaignProgress {
    const runningByStep = this.steps.map(() => 0);
    for (const { pending } of this.active.values()) runningByStep[pending.job.step]!++;
    const waitingByStep = this.steps.map(() => 0);
    for (const { job } of [...this.waiting, ...this.heirs.values()]) waitingByStep[job.step]!++;
    const finished = this.counts.reduce((n, c) => n + c.succeeded + c.cached + c.failed + c.skipped, 0);
    const remaining = this.jobCount - finished;
    const elapsed = now - this.startedAt;
    const outcome: CampaignOutcome = this.isDone() ? (this.stopReason ?? 'completed') : 'running';
    return {
      campaign,
      outcome,
      steps: this.steps.map((step, index) => ({
        id: step.id,
        model: step.model,
        planned: step.jobCount,
        running: runningByStep[index]!,
        waiting: waitingByStep[index]!,
        ...this.counts[index]!,
      })),
      spent: this.spent,
      committed: this.committed,
      budget: this.budget,
      recentFailures: this.recentFailures,
      startedAt: this.startedAt,
      etaMs:
        finished > 0 && remaining > 0 && elapsed > 0 ? Math.round((elapsed / finished) * remaining) : null,
      runs: this.runs,
    };
  }

  private activate(pending: PendingJob, predictionId: string | null, startedAt: number): void {
    this.hold(pending);
    this.active.set(pending.job.i, { pending, predictionId, startedAt });
  }

  /** A job about to be created: its price is committed, its step slot taken, its children wait. */
  private hold({ job }: PendingJob): void {
    this.windowKeys.add(job.key);
    this.stepActive[job.step]!++;
    this.committed += job.usd;
  }

  private release(i: number): PendingJob {
    const active = this.active.get(i);
    if (!active) throw new Error(`job ${i} is not in flight`);
    this.active.delete(i);
    this.unhold(active.pending);
    return active.pending;
  }

  private unhold({ job }: PendingJob): void {
    this.windowKeys.delete(job.key);
    this.stepActive[job.step]!--;
    this.committed -= job.usd;
  }

  private putBack(pending: PendingJob): void {
    this.waiting.unshift(pending);
    this.windowKeys.add(pending.job.key);
  }

  private recordFailure(job: JobRef, message: string): void {
    this.recentFailures.push({ job: job.name, step: this.steps[job.step]!.id, message });
    if (this.recentFailures.length > MAX_RECENT_FAILURES) this.recentFailures.shift();
  }
}

/**
 * Review gates of a campaign (docs/spec-format.md, "Review gates"): the jobs whose output waits
 * for a reviewer, the descendants they hold back, and what decisions released. A waiting job
 * holds no slot and no window space: its descendants are dropped from the window (they are read
 * again from the plan once it is approved) and the window moves on. The rules are pure functions
 * in review-rules.ts; this class moves the state and carries it compactly across continue-as-new.
 */
import type { CarriedReviews, JobRef, Release, StepInfo } from '../../contract/campaign.ts';
import type { DecisionRecord, ReviewAction } from '../../contract/review.ts';
import type { ReviewRule } from '../../plan/review.ts';
import { covers, deadlineOf, type Gate, releaseOf, type Span, spanOf, splitRead } from './review-rules.ts';

/**
 * Numbers per gate in CarriedReviews.gates: i, end, step, take, since, flags, usd, belowUsd; flags
 * is 1 when retaking, plus 2 when the take was found recorded (older runs carried 0 or 1).
 */
const GATE_FIELDS = 8;
/** Job keys are 32 hex characters (plan/keys.ts), so they are carried joined, without separators. */
const KEY_LENGTH = 32;

export class Reviews {
  private readonly gates = new Map<string, Gate>();
  /** Plan indexes of the gates with descendants, sorted: those descendants are parked. */
  private readonly starts: number[] = [];
  private readonly byStart = new Map<number, Gate>();
  /** Keys decided in this run, to say "decided already" rather than "unknown" (not carried). */
  private readonly decided = new Set<string>();
  /** Descendants of rejected jobs the plan's cursor has not passed yet: skipped as they are read. */
  private rejected: [number, number][];
  private releases: Release[];
  readonly approved: number[];
  readonly rejectedCount: number[];
  /**
   * deadline()'s answer until a gate changes: the executor asks at every decision and the
   * deadline timer at every activation, and a scan of 10,000 waiting takes each time adds up.
   */
  private earliest: number | null | undefined;

  private readonly steps: readonly StepInfo[];

  constructor(steps: readonly StepInfo[], carried?: CarriedReviews) {
    this.steps = steps;

    this.rejected = (carried?.rejected ?? []).map(([from, end]) => [from, end]);
    this.releases = [...(carried?.releases ?? [])];
    this.approved = steps.map((_, s) => carried?.approved[s] ?? 0);
    this.rejectedCount = steps.map((_, s) => carried?.rejectedCount[s] ?? 0);
    const numbers = carried?.gates ?? [];
    for (let n = 0; n * GATE_FIELDS < numbers.length; n++) {
      const [i, end, step, take, since, flags, usd, belowUsd] = numbers.slice(n * GATE_FIELDS);
      const key = carried!.keys.slice(n * KEY_LENGTH, (n + 1) * KEY_LENGTH);
      this.add({
        i: i!,
        key,
        step: step!,
        end: end!,
        usd: usd!,
        belowUsd: belowUsd!,
        take: take!,
        since: since!,
        retaking: (flags! & 1) === 1,
        cached: (flags! & 2) === 2,
      });
    }
  }

  gated(step: number): boolean {
    return this.steps[step]!.review !== undefined;
  }

  /** Gates open or releases to read: the campaign is not done. */
  get busy(): boolean {
    return this.gates.size > 0 || this.releases.length > 0;
  }

  /** Jobs read from the plan may be held back or skipped: some gate is open or rejected range left. */
  get filters(): boolean {
    return this.gates.size > 0 || this.rejected.length > 0;
  }

  /**
   * The job's take is saved (`cached`: found recorded by an earlier run): it waits for a decision,
   * and its descendants wait with it.
   */
  open(job: JobRef, take: number, now: number, cached = false): void {
    this.earliest = undefined;
    const gate = this.gates.get(job.key);
    if (gate) {
      gate.take = take;
      gate.since = now;
      gate.retaking = false;
      gate.cached = cached;
      return;
    }
    const end = job.end ?? job.i + 1;
    this.add({
      i: job.i,
      key: job.key,
      step: job.step,
      end,
      usd: job.usd,
      belowUsd: job.belowUsd ?? 0,
      take,
      since: now,
      retaking: false,
      cached,
    });
  }

  /** A descendant of a job awaiting review (or being retaken): it is not admitted now. */
  parks(i: number): boolean {
    return covers(this.starts, (from) => this.byStart.get(from)!.end, i);
  }

  /** A descendant of a rejected job. */
  skips(i: number): boolean {
    return this.rejected.some(([from, end]) => i >= from && i < end);
  }

  /** Rejected ranges the cursor has passed are forgotten: nothing in them is read again. */
  prune(cursor: number): void {
    this.rejected = this.rejected.filter(([, end]) => end > cursor);
  }

  /** The gate of a job awaiting review (or being retaken), if any. */
  gateOf(key: string): Gate | undefined {
    return this.gates.get(key);
  }

  ruleOf(step: number): ReviewRule | null {
    return this.steps[step]!.review ?? null;
  }

  /** Decided earlier in this workflow run. */
  wasDecided(key: string): boolean {
    return this.decided.has(key);
  }

  /** A decision recorded by an earlier run (the job was cached): applied again, not asked again. */
  recall(
    job: JobRef,
    take: number,
    action: ReviewAction,
    prompt: string | undefined,
    c: { now: number; cursor: number },
  ): void {
    if (action === 'approve') {
      this.approved[job.step]!++;
      return;
    }
    this.open(job, take, c.now, true);
    this.accept(this.gates.get(job.key)!, action, c.cursor, prompt);
  }

  /** Earliest campaign-clock time a waiting take times out, or null. */
  deadline(): number | null {
    if (this.earliest !== undefined) return this.earliest;
    let earliest: number | null = null;
    if (this.steps.some((step) => step.review?.timeoutMs)) {
      for (const gate of this.gates.values()) {
        const due = deadlineOf(gate, this.steps[gate.step]!.review ?? null);
        if (due !== null && (earliest === null || due < earliest)) earliest = due;
      }
    }
    this.earliest = earliest;
    return earliest;
  }

  /** Takes whose timeout has passed: decided by their step's `on_timeout`, recorded as such. */
  timeOut(now: number, at: string, cursor: number): DecisionRecord[] {
    const records: DecisionRecord[] = [];
    for (const gate of [...this.gates.values()]) {
      const rule = this.steps[gate.step]!.review ?? null;
      const due = deadlineOf(gate, rule);
      if (due === null || due > now || !rule) continue;
      records.push({ key: gate.key, action: rule.onTimeout, take: gate.take, at, source: 'timeout' });
      this.accept(gate, rule.onTimeout, cursor, undefined);
    }
    return records;
  }

  /** A job being retaken failed for good: its descendants are skipped, as for a rejection. */
  abandon(key: string, cursor: number): void {
    const gate = this.gates.get(key);
    if (gate?.retaking) this.close(gate, 'reject', cursor, undefined);
  }

  /** Plan indexes to read for the releases waiting (review-rules.ts, spanOf), or undefined. */
  nextRead(page: number): Span | undefined {
    return spanOf(this.releases, page);
  }

  /** The jobs of a read: the releases it served, each with its jobs (the rest wait). */
  served(span: Span, jobs: readonly JobRef[]): { release: Release; jobs: JobRef[] }[] {
    const { served, left } = splitRead(this.releases, span, jobs);
    this.releases = left;
    return served;
  }

  awaiting(): number[] {
    const counts = this.steps.map(() => 0);
    for (const gate of this.gates.values()) if (!gate.retaking) counts[gate.step]!++;
    return counts;
  }

  carry(): CarriedReviews {
    const gates = [...this.gates.values()];
    return {
      keys: gates.map((g) => g.key).join(''),
      gates: gates.flatMap((g) => [
        g.i,
        g.end,
        g.step,
        g.take,
        g.since,
        (g.retaking ? 1 : 0) + (g.cached ? 2 : 0),
        g.usd,
        g.belowUsd,
      ]),
      rejected: this.rejected,
      releases: this.releases,
      approved: this.approved,
      rejectedCount: this.rejectedCount,
    };
  }

  /** A decision applies: the gate closes (its descendants released) or a new take is asked for. */
  accept(gate: Gate, action: ReviewAction, cursor: number, prompt: string | undefined): void {
    this.earliest = undefined;
    this.decided.add(gate.key);
    if (action === 'approve') this.approved[gate.step]!++;
    if (action === 'reject') this.rejectedCount[gate.step]!++;
    if (action === 'regenerate') {
      gate.retaking = true;
      this.releases.push(releaseOf(gate, action, cursor, prompt)!);
      return;
    }
    this.close(gate, action, cursor, prompt);
  }

  private close(gate: Gate, action: 'approve' | 'reject', cursor: number, prompt: string | undefined): void {
    this.earliest = undefined;
    this.gates.delete(gate.key);
    if (gate.end > gate.i + 1) {
      this.starts.splice(this.starts.indexOf(gate.i), 1);
      this.byStart.delete(gate.i);
    }
    const release = releaseOf(gate, action, cursor, prompt);
    if (release) this.releases.push(release);
    if (action === 'reject' && gate.end > cursor)
      this.rejected.push([Math.max(cursor, gate.i + 1), gate.end]);
  }

  private add(gate: Gate): void {
    this.earliest = undefined;
    this.gates.set(gate.key, gate);
    if (gate.end <= gate.i + 1) return;
    let at = this.starts.length;
    while (at > 0 && this.starts[at - 1]! > gate.i) at--;
    this.starts.splice(at, 0, gate.i);
    this.byStart.set(gate.i, gate);
  }
}

/**
 * The campaign's clock for its decisions: pacing, the drain deadline, limit re-reads.
 *
 * Date.now() in a workflow is the time of the current workflow task, and it is not always the
 * same live and on replay: after a worker was SIGKILLed, its sticky task timed out and another
 * worker ran the task, the time that worker saw differed from the one a later replay saw (by the
 * 10 s of the timeout), the pacer decided differently, and every replay failed with
 * `[TMPRL1100] Nondeterminism error: Activity machine does not handle this event: TimerStarted`
 * (reproduced by test/engine/durability.test.ts with finer pacing; docs/engine.md).
 *
 * This clock moves only with facts the history records: the execution's start event (or the
 * reading carried over by continue-as-new), the worker times that activity results carry, and the
 * timers the workflow itself slept through. A replay sees the same
 * facts in the same order, so it makes the same decisions.
 */
export class CampaignClock {
  private at: number;

  constructor(at: number) {
    this.at = at;
  }

  now(): number {
    return this.at;
  }

  /** A time some activity result reports (worker clocks: the latest one wins). */
  observe(at: number): void {
    if (at > this.at) this.at = at;
  }

  /** A timer of `ms`, started when the clock read `from`, has fired. */
  slept(from: number, ms: number): void {
    this.observe(from + ms);
  }
}

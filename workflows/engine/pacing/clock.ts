/**
 * The campaign's clock for its decisions: pacing, the drain deadline, limit re-reads.
 *
 * Date.now() in a workflow is the time of the current workflow task, and it is not always the
 * same live and on replay: after a worker was SIGKILLed, its sticky task timed out and another
 * worker ran the task, the time that worker saw differed from the one a later replay saw (by the
 * task's timeout), the pacer decided differently, and every replay failed with
 * `[TMPRL1100] Nondeterminism error: Activity machine does not handle this event: TimerStarted`
 * (reproduced by test/engine/durability.int.test.ts with finer pacing; docs/engine.md).
 *
 * This clock moves only with facts the history records: the execution's start event (or the
 * reading carried over by continue-as-new), the worker times that activity results carry, and the
 * timers the workflow itself slept through. A replay sees the same
 * facts in the same order, so it makes the same decisions. Plain data in the model.
 */
export interface Clock {
  /** Campaign time now, ms since the epoch. */
  at: number;
}

/** A time some activity result reports (worker clocks: the latest one wins). */
export function observe(clock: Clock, at: number): void {
  if (at > clock.at) clock.at = at;
}

/** A timer of `ms`, started when the clock read `from`, has fired. */
export function slept(clock: Clock, from: number, ms: number): void {
  observe(clock, from + ms);
}

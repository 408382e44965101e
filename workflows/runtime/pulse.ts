/**
 * Progress on a wall-clock interval, whatever the activities are doing (issue 21): the memo and
 * the search attributes were published only when a report arrived, so a download retrying for
 * minutes froze `status` ("15/18, $0.36 in flight, 0s left" while jobs had ended). One timer
 * every PULSE_MS for the whole run, not one per wait of the loop: a wait ended early by a report
 * would add a canceled timer (two events) to every turn of a busy campaign. The pulse moves the
 * campaign clock by what it slept (clock.ts: only facts the history records), and the reducer
 * publishes when nothing was published for a whole interval (reducer/next.ts, `pulsed`).
 */
import { isCancellation, sleep } from '@temporalio/workflow';
import type { Model } from '../engine/model.ts';
import type { Executor } from './executor.ts';

export const PULSE_MS = 10_000;

/** Starts the pulse; stop() ends it. */
export function startPulse(model: Model, executor: Executor): { stop(): void } {
  let stopped = false;
  void (async () => {
    try {
      while (!stopped) {
        const from = model.clock.at;
        await sleep(PULSE_MS);
        if (!stopped) executor.dispatch({ kind: 'pulse', from, ms: PULSE_MS });
      }
    } catch (error) {
      // Canceled with the campaign: the cancel path publishes the final progress itself.
      if (!isCancellation(error)) throw error;
    }
  })();
  return {
    stop: () => {
      stopped = true;
    },
  };
}

/**
 * Progress on a wall-clock interval, whatever the activities are doing: published only when a
 * report arrived, the memo and the search attributes froze while a download retried for minutes,
 * and `status` showed jobs in flight that had ended. One timer every PULSE_MS for the whole run,
 * not one per wait of the loop: a wait ended early by a report would add a canceled timer (two
 * events) to every turn of a busy campaign. The pulse moves the campaign clock by what it slept
 * (engine/pacing/clock.ts: only facts the history records), and `step` publishes when nothing was
 * published for a whole interval (engine/notices/publishing.ts, `pulsed`).
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

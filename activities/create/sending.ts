/**
 * The creates this worker has sent and not yet claimed, by model and input. A reconciling create
 * finds predictions by model and input (reconcile.ts), so a twin's (same input, `repeat:`) whose
 * create has its answer but has not written its claim yet looks unclaimed; it waits for this
 * worker's creates of the same input to claim theirs before it reads the claims. Kept in memory:
 * the window is one request and one claim write, and only this process can end it early.
 */
import { canonicalJson } from '../../plan/keys.ts';
import type { Ready } from './batch.ts';

const sending = new Map<string, Set<Promise<unknown>>>();

const inputOf = (entry: Ready) => `${entry.job.model}\n${canonicalJson(entry.input)}`;

/** Runs `work` (sending the entries' creates and claiming them) as in flight for their inputs. */
export function whileSending<T>(entries: readonly Ready[], work: () => Promise<T>): Promise<T> {
  const running = work();
  const inputs = [...new Set(entries.map(inputOf))];
  for (const input of inputs) {
    const set = sending.get(input) ?? new Set();
    set.add(running);
    sending.set(input, set);
  }
  const done = () => {
    for (const input of inputs) {
      const set = sending.get(input);
      set?.delete(running);
      if (set?.size === 0) sending.delete(input);
    }
  };
  running.then(done, done);
  return running;
}

/** Resolves once every create of this worker sent for one of the entries' inputs has claimed (or failed). */
export async function sendingSettled(entries: readonly Ready[]): Promise<void> {
  const running = entries.flatMap((entry) => [...(sending.get(inputOf(entry)) ?? [])]);
  await Promise.allSettled(running);
}

/**
 * Many small files of a folder read at once (a re-run reads every record): synchronously while the
 * page cache answers, several at a time once the reads wait on the disk. Measured on 100,000
 * records (docs/benchmarks.md, "rerun-100k"): cached, one after another took 1.4 s where
 * fs/promises took 7.3 s (its thread-pool hops cost more than the read); from the disk, one after
 * another took 120 s and 16 at a time 9 s. No library reads a batch both ways, so this does.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import pLimit from 'p-limit';

/** A read slower than this waited on the disk (a cached record takes about 15 µs). */
const SLOW_MS = 0.5;
/** Reads made synchronously before their speed is judged, and between yields to the event loop. */
const SAMPLE = 16;
const YIELD_EVERY = 1_000;
/** Reads in flight once the disk answers. */
const PARALLEL = 16;

/**
 * Item i of the result is `now(i)`, or `later(i)` once more than one read in eight was slow: the
 * rest are then read `PARALLEL` at a time. The event loop gets a turn every YIELD_EVERY reads, so a
 * server reading a large campaign's records still answers meanwhile.
 */
export async function readEach<T>(
  count: number,
  now: (i: number) => T,
  later: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let slow = 0;
  let i = 0;
  for (; i < count; i++) {
    if (i >= SAMPLE && slow * 8 > i) break;
    if (i > 0 && i % YIELD_EVERY === 0) await setImmediate();
    const started = performance.now();
    results[i] = now(i);
    if (performance.now() - started > SLOW_MS) slow++;
  }
  const limit = pLimit(PARALLEL);
  const rest = Array.from({ length: count - i }, (_, k) => i + k);
  await Promise.all(
    rest.map((j) =>
      limit(async () => {
        results[j] = await later(j);
      }),
    ),
  );
  return results;
}

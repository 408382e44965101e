/**
 * Many small files of a folder read at once (a re-run reads every record): synchronously while the
 * page cache answers, several at a time while the reads wait on the disk: a cached read is cheaper
 * than fs/promises' thread-pool hops around it, and reads that wait on the disk overlap
 * (docs/benchmarks.md, "rerun-100k"). No library reads a batch both ways, so this does.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import pLimit from 'p-limit';

/** A read slower than this waited on the disk: a cached record takes far less. */
const SLOW_MS = 0.5;
/** Reads made synchronously before their speed is judged. */
const SAMPLE = 16;
/**
 * Reads judged together: each chunk starts synchronously, so one chunk's slow reads (the disk, or
 * a busy machine pausing this process) do not decide how the rest are read. The event loop gets a
 * turn between chunks, so a server reading a large campaign's records still answers meanwhile.
 */
const CHUNK = 1_000;
/** Reads in flight while the disk answers. */
const PARALLEL = 16;

/**
 * Item i of the result is `now(i)`, read synchronously, or `later(i)` for the rest of a chunk in
 * which more than one read in eight was slow, PARALLEL at a time.
 */
export async function readEach<T>(
  count: number,
  now: (i: number) => T,
  later: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  const limit = pLimit(PARALLEL);
  for (let start = 0; start < count; start += CHUNK) {
    if (start > 0) await setImmediate();
    const end = Math.min(count, start + CHUNK);
    let slow = 0;
    let i = start;
    for (; i < end; i++) {
      if (i - start >= SAMPLE && slow * 8 > i - start) break;
      const began = performance.now();
      results[i] = now(i);
      if (performance.now() - began > SLOW_MS) slow++;
    }
    const rest = Array.from({ length: end - i }, (_, k) => i + k);
    await Promise.all(
      rest.map((j) =>
        limit(async () => {
          results[j] = await later(j);
        }),
      ),
    );
  }
  return results;
}

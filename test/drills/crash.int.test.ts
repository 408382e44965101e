/**
 * The crash drills of issue 5, short: a chained campaign through 5xx replies, failed predictions
 * and dropped downloads while its worker process is SIGKILLed twice and the Temporal server
 * restarted once. The full-size drills are `npm run drill -- crash` (docs/benchmarks.md).
 */
import { describe, expect, it } from 'vitest';
import { crashDrill } from '../../bench/drills/crash.ts';

const SHORT = { jobs: 40, kills: 2, restarts: 1, latencyMs: { I4: 500, V6: 1_500 }, concurrency: 10 };

describe('crash drill (short)', () => {
  it('loses no file, creates no prediction twice and spends exactly what the manifest says', async () => {
    const report = await crashDrill({ ...SHORT, seed: 11 });

    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.numbers.duplicates).toBe(0);
  }, 120_000);

  it('creates no duplicate even when the service ignores Idempotency-Key', async () => {
    const report = await crashDrill({ ...SHORT, seed: 12, ignoreIdempotency: true });

    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.numbers.duplicates).toBe(0);
  }, 120_000);
});

/**
 * The scale-out drill of issue 13, short: a chained campaign into S3 on three workers, each in an
 * empty directory of its own, through the crash drill's service faults, one worker SIGKILLed and
 * the S3 server restarted once. The full drill is `npm run drill -- scale-out` (500 jobs, three
 * SIGKILLs).
 */
import { describe, expect, it } from 'vitest';
import { scaleOutDrill } from '../../bench/drills/scale-out.ts';

describe('scale-out drill (short)', () => {
  it('loses no object, records each job once, creates no prediction twice, and writes nothing locally', async () => {
    const report = await scaleOutDrill({
      jobs: 40,
      kills: 1,
      s3Restarts: 1,
      seed: 13,
      latencyMs: { I4: 500, V6: 1_500 },
      concurrency: 10,
    });

    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.numbers.duplicates).toBe(0);
  }, 180_000);
});

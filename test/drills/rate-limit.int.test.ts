/**
 * The rate-limit drill of issue 5, short: the create limit is cut to a tenth mid-run; once the
 * engine has settled (10 s here, a minute in the full drill) at most 1 % of requests get 429,
 * and every job succeeds. Full size: `npm run drill -- rate-limit`.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitDrill } from '../../bench/drills/rate-limit.ts';

describe('rate-limit drill (short)', () => {
  it('adapts to a create limit cut mid-run, with nothing failing', async () => {
    const report = await rateLimitDrill({
      // Enough jobs that a full window lies past the settling time even when the cut, read from the
      // ledger every 1.25 s, comes late: before it 60+ creates a second pass.
      jobs: 300,
      seed: 31,
      latencyMs: 300,
      concurrency: 20,
      createsPerMinute: { before: 6_000, after: 600 },
      cutAt: 0.1,
      settleMs: 10_000,
      windowMs: 5_000,
    });

    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.numbers.failed).toBe(0);
  }, 120_000);
});

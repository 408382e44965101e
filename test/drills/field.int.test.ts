/**
 * The `field` drill of issue 21, short: 60 jobs (stills feeding clips) through seeded prompt
 * refusals, flagged outputs, expiring links, short and stalling bodies, a 20 s outage and two
 * worker SIGKILLs. The outage is named by the fourth failed attempt of a create or a finish
 * (contract/failure-policy.ts, OUTAGE_AFTER_ATTEMPTS): about 6 s in on a quiet machine, so a
 * 10 s outage was over before a loaded machine got there, and `status` never named it. Every job
 * must end in one named outcome, nothing may hang or be paid twice, and status, report, manifest
 * and records must agree with the ledger to the micro-dollar. The full drill (`npm run drill --
 * field`) adds the full disk and the wall against a fault-free run; the wall is a timing goal,
 * which the suite never asserts on a loaded machine.
 */
import { describe, expect, it } from 'vitest';
import { fieldDrill } from '../../bench/drills/field.ts';

describe('field drill (short)', () => {
  it('ends every job in one named outcome, never hangs, pays once and agrees on the money', async () => {
    const report = await fieldDrill({
      jobs: 60,
      seed: 21,
      outageMs: 20_000,
      disk: false,
      baseline: false,
      latencyMs: { I4: 500, V6: 1_500 },
      concurrency: 20,
      stallWindowS: 3,
      timeoutMs: 240_000,
    });

    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.numbers.duplicates).toBe(0);
  }, 300_000);
});

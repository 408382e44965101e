/**
 * The budget drill of issue 5, short: a plan costing twice its budget, started with the override,
 * spends up to the budget and never a cent above it. Full size: `npm run drill -- budget`.
 */
import { describe, expect, it } from 'vitest';
import { budgetDrill } from '../../bench/drills/budget.ts';

describe('budget drill (short)', () => {
  it('stops spending at the budget of a plan that costs twice as much', async () => {
    const report = await budgetDrill({ jobs: 40, seed: 21 });

    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.numbers.outcome).toBe('budget_reached');
  }, 120_000);
});

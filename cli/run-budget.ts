/**
 * The campaign's budget against what it has paid already. `budget.max_usd` bounds the campaign in
 * all its runs together (superseded takes, jobs an edit removed, charged refusals: whatever its
 * records say it paid, records/campaign-paid.ts), so a run may spend only what is left of it;
 * `budget.per_run_usd` bounds each run on its own. What a run may spend is the lesser: the
 * workflow holds spent + committed to it (contract/budget-rule.ts).
 */
import { formatDollars, type Micros } from '../api/money.ts';
import { fitsBudget } from '../contract/budget-rule.ts';
import type { Plan } from '../plan/types.ts';

export interface RunBudget {
  /** `budget.max_usd`, for all runs together; null without one. */
  readonly campaign: Micros | null;
  /** What earlier runs paid, by the records. */
  readonly earlier: Micros;
  /** What is left of `campaign` after `earlier` (never below 0); null without `campaign`. */
  readonly left: Micros | null;
  /** `budget.per_run_usd`; null without one. */
  readonly perRun: Micros | null;
  /** What this run may spend: the lesser of `left` and `perRun`; null when neither is set. */
  readonly run: Micros | null;
}

export function runBudgetOf(plan: Pick<Plan, 'budget' | 'perRunBudget'>, earlier: Micros): RunBudget {
  const left = plan.budget === null ? null : Math.max(0, plan.budget - earlier);
  const perRun = plan.perRunBudget ?? null;
  const limits = [left, perRun].filter((limit) => limit !== null);
  return {
    campaign: plan.budget,
    earlier,
    left,
    perRun,
    run: limits.length === 0 ? null : Math.min(...limits),
  };
}

/** "budget $12.00: $4.31 spent in earlier runs, $7.69 left", "per run $5.00", or "no budget". */
export function budgetText(budget: RunBudget): string {
  const parts: string[] = [];
  if (budget.campaign !== null) {
    parts.push(
      budget.earlier === 0
        ? `budget ${formatDollars(budget.campaign)}`
        : `budget ${formatDollars(budget.campaign)}: ${formatDollars(budget.earlier)} spent in earlier runs, ${formatDollars(budget.left!)} left`,
    );
  }
  if (budget.perRun !== null) parts.push(`per run ${formatDollars(budget.perRun)}`);
  return parts.length === 0 ? 'no budget' : parts.join('; ');
}

/** Why `cost` for the `jobs` left cannot start within the budget, or null when it fits. */
export function budgetRefusal(budget: RunBudget, jobs: number, cost: Micros): string | null {
  const what = `the ${jobs} jobs left cost ${formatDollars(cost)}`;
  if (budget.campaign !== null && !fitsBudget(budget.left, cost)) {
    return budget.earlier === 0
      ? `${what}, over the budget of ${formatDollars(budget.campaign)}`
      : `${what}, over the ${formatDollars(budget.left!)} left of the budget of ${formatDollars(budget.campaign)} (${formatDollars(budget.earlier)} spent in earlier runs)`;
  }
  if (budget.perRun !== null && !fitsBudget(budget.perRun, cost))
    return `${what}, over the per-run budget of ${formatDollars(budget.perRun)}`;
  return null;
}

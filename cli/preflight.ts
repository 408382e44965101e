/**
 * The checks before a campaign spends anything (decision 4): what is left to run (jobs already in
 * the manifest cost nothing), its price with the service's estimate for jobs the catalogue cannot
 * price, the account balance, what earlier runs paid, and a verdict against what is left of the
 * budget and the balance.
 */

import { retryRead, type ServiceClient } from '../api/client/index.ts';
import { formatDollars, type Micros } from '../api/money.ts';
import { refusalWorstCase } from '../plan/refusal-costs.ts';
import { type ReviewCosts, reviewCosts } from '../plan/review-costs.ts';
import type { Plan, PlannedJob } from '../plan/types.ts';
import { campaignPaid } from '../records/campaign-paid.ts';
import { openStore, type Store } from '../store/index.ts';
import { type LeftToRun, leftToRun } from './left-to-run.ts';
import { budgetRefusal, type RunBudget, runBudgetOf } from './run-budget.ts';
import { servicePrices } from './service-prices.ts';

export interface PreflightReport {
  /** What the records say: recorded jobs, the jobs left and why, the approvals an edit voids. */
  readonly left: LeftToRun;
  /** Jobs not yet recorded with their file. */
  readonly toRun: number;
  /** Their price: local prices, and the service's estimate where there is none. */
  readonly cost: Micros;
  readonly balance: Micros;
  /** The budget against what earlier runs paid: `budget.run` is what this run may spend. */
  readonly budget: RunBudget;
  /** Prices the service gave for jobs the catalogue cannot price (stored with the plan). */
  readonly servicePrices: ReadonlyMap<string, Micros>;
  /** With review gates: the cost of the reviewed jobs left, and before and after approvals. */
  readonly review: ReviewCosts | null;
  /**
   * With `on_refusal: retry | fallback`: the cost if every take is refused after it was paid (plan/
   * refusal-costs.ts). Shown, not refused: the budget rule holds every further take to the budget.
   */
  readonly worstCase: Micros | null;
  /** Reasons not to start; empty when all is well. */
  readonly refusals: readonly string[];
  /** `cost` per model label, for per-model spend caps (cli/caps-line.ts). */
  readonly costByModel: Readonly<Record<string, Micros>>;
}

/**
 * `known`: service prices already asked (estimate asks them for every job); only the jobs left
 * that neither the catalogue nor `known` prices are asked for.
 */
export async function preflight(
  service: Pick<ServiceClient, 'estimate' | 'account'>,
  plan: Plan,
  store: Store = openStore(plan.outputDir),
  known: ReadonlyMap<string, Micros> = new Map(),
): Promise<PreflightReport> {
  const left = await leftToRun(plan, store);
  const pending: PlannedJob[] = left.toRun.map(({ job }) => job);

  const { byKey: asked } = await servicePrices(
    service,
    pending.filter((job) => job.usd === null && !known.has(job.key)),
  );
  const prices = new Map([...known, ...asked]);
  const priceOf = (job: PlannedJob) => job.usd ?? prices.get(job.key) ?? 0;
  const cost = pending.reduce((sum, job) => sum + priceOf(job), 0);
  const review = reviewCosts(pending, plan.steps, priceOf, left.awaitingDecision);
  const extra = refusalWorstCase(pending, plan.steps, priceOf);
  const { credits: balance } = await retryRead(() => service.account.balance());

  const budget = runBudgetOf(plan, await campaignPaid(plan.outputDir, plan.campaign, 0, store));
  const refusals: string[] = [];
  const overBudget = budgetRefusal(budget, pending.length, cost);
  if (overBudget !== null) refusals.push(overBudget);
  if (cost > balance) {
    refusals.push(
      `the ${pending.length} jobs left cost ${formatDollars(cost)}, more than the balance of ${formatDollars(balance)}`,
    );
  }
  const worstCase = extra === null ? null : cost + extra;
  const costByModel: Record<string, Micros> = {};
  for (const job of pending) costByModel[job.model] = (costByModel[job.model] ?? 0) + priceOf(job);
  return {
    left,
    toRun: pending.length,
    cost,
    balance,
    budget,
    servicePrices: prices,
    review,
    worstCase,
    refusals,
    costByModel,
  };
}

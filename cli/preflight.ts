/**
 * The checks before a campaign spends anything (decision 4): what is left to run (jobs already in
 * the manifest cost nothing), its price with the service's estimate for jobs the catalogue cannot
 * price, the account balance, and a verdict against the budget and the balance.
 */

import pLimit from 'p-limit';
import { retryRead, type ServiceClient } from '../api/client/index.ts';
import { formatDollars, type Micros } from '../api/money.ts';
import { fitsBudget } from '../contract/budget-rule.ts';
import { refusalWorstCase } from '../plan/refusal-costs.ts';
import { type ReviewCosts, reviewCosts } from '../plan/review-costs.ts';
import type { Plan, PlannedJob } from '../plan/types.ts';
import { nodeWriter } from '../records/jsonl.ts';
import { Manifest } from '../records/manifest.ts';
import { recordedOutput } from '../records/outputs.ts';
import { openStore, type Store } from '../store/index.ts';
import { servicePrices } from './service-prices.ts';

export interface PreflightReport {
  /** Jobs not yet in the manifest. */
  readonly toRun: number;
  /** Their price: local prices, and the service's estimate where there is none. */
  readonly cost: Micros;
  readonly balance: Micros;
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

export async function preflight(
  service: ServiceClient,
  plan: Plan,
  store: Store = openStore(plan.outputDir),
): Promise<PreflightReport> {
  const manifest = await Manifest.open(plan.outputDir, nodeWriter, store);
  // A recorded job counts only while its file is there: a lost one is priced as a new generation.
  // Several at a time: in S3 mode each lookup is a request or two.
  const limit = pLimit(32);
  const done = await Promise.all(
    plan.jobs.map((job) => limit(async () => (await recordedOutput(manifest, job.key)).state === 'done')),
  );
  const pending: PlannedJob[] = plan.jobs.filter((_, i) => !done[i]);

  const { byKey: prices } = await servicePrices(
    service,
    pending.filter((job) => job.usd === null),
  );
  const priceOf = (job: PlannedJob) => job.usd ?? prices.get(job.key) ?? 0;
  const cost = pending.reduce((sum, job) => sum + priceOf(job), 0);
  const review = reviewCosts(pending, plan.steps, priceOf);
  const extra = refusalWorstCase(pending, plan.steps, priceOf);
  const { credits: balance } = await retryRead(() => service.account.balance());

  const refusals: string[] = [];
  if (plan.budget !== null && !fitsBudget(plan.budget, cost)) {
    refusals.push(
      `the ${pending.length} jobs left cost ${formatDollars(cost)}, over the budget of ${formatDollars(plan.budget)}`,
    );
  }
  if (cost > balance) {
    refusals.push(
      `the ${pending.length} jobs left cost ${formatDollars(cost)}, more than the balance of ${formatDollars(balance)}`,
    );
  }
  const worstCase = extra === null ? null : cost + extra;
  const costByModel: Record<string, Micros> = {};
  for (const job of pending) costByModel[job.model] = (costByModel[job.model] ?? 0) + priceOf(job);
  return {
    toRun: pending.length,
    cost,
    balance,
    servicePrices: prices,
    review,
    worstCase,
    refusals,
    costByModel,
  };
}

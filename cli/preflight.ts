/**
 * The checks before a campaign spends anything (decision 4): what is left to run (jobs already in
 * the manifest cost nothing), its price with the service's estimate for jobs the catalogue cannot
 * price, the account balance, and a verdict against the budget and the balance.
 */
import pLimit from 'p-limit';
import { Manifest } from '../activities/manifest.ts';
import type { ServiceClient } from '../api/client/index.ts';
import { formatDollars, type Micros } from '../api/money.ts';
import { FROM_OUTPUT, LOCAL_FILE_PREFIX, type Plan, type PlannedJob } from '../plan/types.ts';

export interface PreflightReport {
  /** Jobs not yet in the manifest. */
  readonly toRun: number;
  /** Their price: local prices, and the service's estimate where there is none. */
  readonly cost: Micros;
  readonly balance: Micros;
  /** Prices the service gave for jobs the catalogue cannot price (stored with the plan). */
  readonly servicePrices: ReadonlyMap<string, Micros>;
  /** Reasons not to start; empty when all is well. */
  readonly refusals: readonly string[];
}

export async function preflight(service: ServiceClient, plan: Plan): Promise<PreflightReport> {
  const manifest = await Manifest.open(plan.outputDir);
  const pending: PlannedJob[] = [];
  for (const job of plan.jobs) if (!(await manifest.get(job.key))) pending.push(job);

  const servicePrices = await estimateUnpriced(service, pending);
  const cost = pending.reduce((sum, job) => sum + (job.usd ?? servicePrices.get(job.key) ?? 0), 0);
  const { credits: balance } = await service.account.balance();

  const refusals: string[] = [];
  if (plan.budget !== null && cost > plan.budget) {
    refusals.push(
      `the ${pending.length} jobs left cost ${formatDollars(cost)}, over the budget of ${formatDollars(plan.budget)}`,
    );
  }
  if (cost > balance) {
    refusals.push(
      `the ${pending.length} jobs left cost ${formatDollars(cost)}, more than the balance of ${formatDollars(balance)}`,
    );
  }
  return { toRun: pending.length, cost, balance, servicePrices, refusals };
}

/** One estimate per distinct input: a sweep of identical V5 jobs asks once. */
async function estimateUnpriced(
  service: ServiceClient,
  jobs: readonly PlannedJob[],
): Promise<Map<string, Micros>> {
  const byInput = new Map<string, PlannedJob[]>();
  for (const job of jobs) {
    if (job.usd !== null) continue;
    const signature = JSON.stringify([job.model, job.input]);
    byInput.set(signature, [...(byInput.get(signature) ?? []), job]);
  }
  const limit = pLimit(8);
  const prices = new Map<string, Micros>();
  await Promise.all(
    [...byInput.values()].map((group) =>
      limit(async () => {
        const price = await service.estimate(group[0]!.model, pricingInput(group[0]!));
        for (const job of group) prices.set(job.key, price);
      }),
    ),
  );
  return prices;
}

/**
 * The input to price: image references that only exist at run time (a parent's output, a file
 * not yet uploaded) do not change a price, so a stand-in link takes their place.
 */
function pricingInput(job: PlannedJob): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(job.input).map(([field, value]) =>
      value === FROM_OUTPUT || (typeof value === 'string' && value.startsWith(LOCAL_FILE_PREFIX))
        ? [field, PRICING_IMAGE]
        : [field, value],
    ),
  );
}

const PRICING_IMAGE = 'https://example.com/mediaflow-pricing-placeholder.png';

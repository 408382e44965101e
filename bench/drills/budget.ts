/**
 * `budget`: a campaign whose plan costs twice its budget, started anyway with the override
 * (`run --allow-over-budget`). Spending must stop at the budget and never pass it, with failed
 * predictions (refunded) and 5xx replies in the mix so refunds and retries are accounted too.
 */
import { formatUsd, parseUsd } from '../../api/money.ts';
import { runCampaign } from '../lib/campaign.ts';
import { startStack } from '../lib/stack.ts';
import { check, type DrillReport, drillReport } from './report.ts';
import { PAIR_USD, pairsSpec } from './specs.ts';
import { verifyOutcome } from './verify.ts';

export interface BudgetDrillOptions {
  /** Planned jobs (two per pair), default 500. */
  jobs?: number;
  seed?: number;
  latencyMs?: { I4: number; V6: number };
  concurrency?: number;
}

/**
 * What a stop may leave unspent: less than one clip ($0.60, the dearest job: anything cheaper
 * still fits), plus one clip per failed prediction, since a failure that lands after the stop
 * refunds money the campaign no longer spends.
 */
const LARGEST_JOB = parseUsd('0.60');

export async function budgetDrill(opts: BudgetDrillOptions = {}): Promise<DrillReport> {
  const pairs = Math.ceil((opts.jobs ?? 500) / 2);
  const budgetUsd = Math.round(pairs * PAIR_USD * 50) / 100; // half the plan's price
  const params = {
    jobs: pairs * 2,
    planUsd: (pairs * PAIR_USD).toFixed(2),
    budgetUsd: budgetUsd.toFixed(2),
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    latencyMs: opts.latencyMs ?? { I4: 500, V6: 1_500 },
    concurrency: opts.concurrency ?? 20,
    faults: { serverErrorRate: 0.05, failRate: 0.02 },
  };
  const stack = await startStack({
    emulator: {
      latencyMs: params.latencyMs,
      seed: params.seed,
      faults: params.faults,
      limits: { createsPerMinute: 6_000, requestsPerMinute: 100_000, maxInFlight: 200 },
    },
  });
  let keep = true; // a drill that throws keeps its folder for inspection
  try {
    const spec = pairsSpec({ pairs, concurrency: params.concurrency, budgetUsd });
    const run = await runCampaign(stack, spec, { allowOverBudget: true, timeoutMs: 10 * 60_000 });
    const outcome = await verifyOutcome(stack, run);
    const charged = parseUsd(outcome.ledger.creditsCharged);
    const budget = parseUsd(params.budgetUsd);
    const slack = LARGEST_JOB * (1 + outcome.ledger.failedPredictions);
    const checks = [
      check(
        'the budget stops the campaign',
        run.progress.outcome === 'budget_reached',
        `outcome ${run.progress.outcome}`,
      ),
      check(
        'spending stops at the budget, never above it',
        charged <= budget && budget - charged < slack,
        `spent $${outcome.ledger.creditsCharged} of a $${params.budgetUsd} budget (plan $${params.planUsd}); ` +
          `${outcome.ledger.failedPredictions} failed predictions refunded, so up to $${formatUsd(slack)} may stay unspent`,
      ),
      ...outcome.checks,
    ];
    const report = drillReport('budget', params, run.wallMs, outcome.numbers, checks, stack.dir);
    keep = !report.ok;
    return report;
  } finally {
    await stack.stop({ keepDir: keep });
  }
}

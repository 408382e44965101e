/**
 * `mediaflow estimate <spec>`: the cost preflight (ARCHITECTURE.md, decision 4). The service's
 * own price (POST /v1/estimate) for each distinct priced input, beside the local catalogue price,
 * then the balance, then a verdict against budget.max_usd and the balance (exit 1 when over).
 *
 * Prices are asked once per distinct priced input (cli/service-prices.ts).
 */

import type { Command } from 'commander';
import type { ModelLabel } from '../../api/catalogue/index.ts';
import type { ServiceClient } from '../../api/client/index.ts';
import { formatDollars, formatUsd, type Micros } from '../../api/money.ts';
import { fitsBudget } from '../../contract/budget-rule.ts';
import type { Plan, PlannedJob } from '../../plan/index.ts';
import { canonicalJson } from '../../plan/keys.ts';
import { refusalWorstCase } from '../../plan/refusal-costs.ts';
import { type ReviewCosts, reviewCosts } from '../../plan/review-costs.ts';
import { type SpecOptions, wholeNumber, withSpecOptions } from '../options.ts';
import { connectPricingService } from '../pricing-service.ts';
import { type PriceGroup, servicePrices } from '../service-prices.ts';
import { table } from './plan.ts';
import { loadPlanOrReport } from './validate.ts';

export interface StepEstimate {
  readonly id: string;
  readonly model: ModelLabel;
  readonly jobs: number;
  /** Sum of the known local prices; `unpricedLocally` jobs are not in it. */
  localUsd: Micros;
  unpricedLocally: number;
  serviceUsd: Micros;
}

export interface EstimateReport {
  readonly campaign: string;
  readonly jobs: number;
  readonly groups: readonly PriceGroup[];
  readonly steps: readonly StepEstimate[];
  readonly localTotal: Micros;
  readonly unpricedLocally: number;
  readonly serviceTotal: Micros;
  readonly balance: Micros;
  readonly budget: Micros | null;
  readonly overBudget: boolean;
  readonly overBalance: boolean;
  /** With review gates: the reviewed steps' cost, and what runs before and after approvals. */
  readonly review: ReviewCosts | null;
  /** With `on_refusal: retry | fallback`: the total if every allowed take is refused after it ran. */
  readonly worstCase: Micros | null;
}

type EstimatingClient = Pick<ServiceClient, 'estimate' | 'account'>;

/** The core of the command, testable against any client (the tests use the real emulator). */
export async function estimatePlan(
  plan: Plan,
  client: EstimatingClient,
  concurrency = 8,
): Promise<EstimateReport> {
  const [prices, balance] = await Promise.all([
    servicePrices(client, plan.jobs, concurrency),
    client.account.balance(),
  ]);
  const steps: StepEstimate[] = plan.steps.map((step) => ({
    id: step.id,
    model: step.model,
    jobs: step.jobCount,
    localUsd: 0,
    unpricedLocally: 0,
    serviceUsd: 0,
  }));
  const stepIndex = new Map(steps.map((step) => [step.id, step]));
  for (const job of plan.jobs) {
    const step = stepIndex.get(job.step)!;
    if (job.usd === null) step.unpricedLocally++;
    else step.localUsd += job.usd;
    step.serviceUsd += prices.byKey.get(job.key)!;
  }
  const serviceTotal = steps.reduce((sum, step) => sum + step.serviceUsd, 0);
  return {
    campaign: plan.campaign,
    jobs: plan.jobs.length,
    groups: prices.groups,
    steps,
    localTotal: plan.totalUsd,
    unpricedLocally: plan.unpricedJobs,
    serviceTotal,
    balance: balance.credits,
    budget: plan.budget,
    overBudget: !fitsBudget(plan.budget, serviceTotal),
    overBalance: serviceTotal > balance.credits,
    review: reviewCosts(plan.jobs, plan.steps, (job) => prices.byKey.get(job.key)!),
    worstCase: worstCaseOf(plan, serviceTotal, (job) => prices.byKey.get(job.key)!),
  };
}

/** Groups whose local price is known and differs from the service's. */
export function disagreements(report: EstimateReport): PriceGroup[] {
  return report.groups.filter((group) => group.localUsd !== null && group.localUsd !== group.serviceUsd);
}

export function verdict(report: EstimateReport): string {
  const total = formatDollars(report.serviceTotal);
  const over = [
    report.overBudget && `over the budget of ${formatDollars(report.budget!)}`,
    report.overBalance && `over the balance of ${formatDollars(report.balance)}`,
  ].filter(Boolean);
  if (over.length > 0) return `refused: ${total} is ${over.join(' and ')}`;
  const budget = report.budget === null ? 'no budget set' : `budget ${formatDollars(report.budget)}`;
  return `ok: ${total} fits (${budget}, balance ${formatDollars(report.balance)})`;
}

export function estimateText(report: EstimateReport): string {
  const local = (usd: Micros, unpriced: number) => {
    if (unpriced === 0) return formatDollars(usd);
    return usd === 0 ? `unknown (${unpriced})` : `${formatDollars(usd)} + ${unpriced} unknown`;
  };
  const rows = report.steps.map((step) => [
    step.id,
    step.model,
    String(step.jobs),
    local(step.localUsd, step.unpricedLocally),
    formatDollars(step.serviceUsd),
  ]);
  const lines = [
    `${report.campaign}: ${report.jobs} jobs, ${report.groups.length} distinct priced inputs estimated by the service`,
    table([
      ['step', 'model', 'jobs', 'local', 'service'],
      ...rows,
      [
        'total',
        '',
        String(report.jobs),
        local(report.localTotal, report.unpricedLocally),
        formatDollars(report.serviceTotal),
      ],
    ]),
  ];
  const differing = disagreements(report);
  if (differing.length > 0) lines.push('disagreements (per job, the service price is used):');
  for (const group of differing) {
    const { prompt: _, ...settings } = group.input;
    lines.push(
      `  ${group.model} ${canonicalJson(settings)}: local ${formatDollars(group.localUsd!)}, service ${formatDollars(group.serviceUsd)} × ${group.jobs} jobs`,
    );
  }
  if (report.review) lines.push(reviewLine(report.review));
  if (report.worstCase !== null) lines.push(refusalLine(report.worstCase, report.budget));
  lines.push(`balance: ${formatDollars(report.balance)}`, verdict(report));
  return `${lines.join('\n')}\n`;
}

/**
 * "refusals: worst case $3.60 if every take on_refusal allows is refused after it ran (budget $40.00
 * holds each one)": what `retry`/`fallback` may add, said before anything is spent.
 */
export function refusalLine(worstCase: Micros, budget: Micros | null): string {
  const hold =
    budget === null ? 'no budget holds them' : `each is held to the budget of ${formatDollars(budget)}`;
  return `refusals: worst case ${formatDollars(worstCase)} if every take on_refusal allows is refused after it ran (${hold})`;
}

/** "review gates: reviewed steps $1.44; before any approval $1.44; worst case (everything approved) $9.24" */
export function reviewLine(costs: ReviewCosts): string {
  return (
    `review gates: reviewed steps ${formatDollars(costs.reviewedUsd)}; before any approval ` +
    `${formatDollars(costs.beforeApprovalsUsd)}; worst case (everything approved) ${formatDollars(costs.worstCaseUsd)}`
  );
}

export function estimateJson(report: EstimateReport) {
  const usd = (micros: Micros | null) => (micros === null ? null : formatUsd(micros));
  return {
    campaign: report.campaign,
    jobs: report.jobs,
    local_total_usd: usd(report.localTotal),
    unpriced_locally: report.unpricedLocally,
    service_total_usd: usd(report.serviceTotal),
    balance_usd: usd(report.balance),
    budget_usd: usd(report.budget),
    over_budget: report.overBudget,
    over_balance: report.overBalance,
    ...(report.worstCase !== null && { refusal_worst_case_usd: usd(report.worstCase) }),
    ...(report.review && {
      review: {
        reviewed_usd: usd(report.review.reviewedUsd),
        before_approvals_usd: usd(report.review.beforeApprovalsUsd),
        worst_case_usd: usd(report.review.worstCaseUsd),
      },
    }),
    steps: report.steps.map((step) => ({
      id: step.id,
      model: step.model,
      jobs: step.jobs,
      local_usd: usd(step.localUsd),
      unpriced_locally: step.unpricedLocally,
      service_usd: usd(step.serviceUsd),
    })),
    disagreements: disagreements(report).map((group) => ({
      model: group.model,
      input: group.input,
      jobs: group.jobs,
      local_usd: usd(group.localUsd),
      service_usd: usd(group.serviceUsd),
    })),
  };
}

export function register(program: Command): void {
  withSpecOptions(
    program
      .command('estimate')
      .description(
        'Price a campaign with the service (POST /v1/estimate) and check it against budget and balance',
      )
      .argument('<spec>', 'campaign spec (YAML)')
      .option('--json', 'print the estimate as JSON (money as decimal strings)')
      .option('--concurrency <n>', 'estimate requests in flight', wholeNumber, 8),
  ).action(async (spec: string, options: SpecOptions & { concurrency: number }) => {
    const plan = await loadPlanOrReport(spec, options);
    if (!plan) return;
    const { client, stop } = await connectPricingService();
    try {
      const report = await estimatePlan(plan, client, options.concurrency);
      process.stdout.write(
        options.json ? `${JSON.stringify(estimateJson(report), null, 2)}\n` : estimateText(report),
      );
      if (report.overBudget || report.overBalance) process.exitCode = 1;
    } catch (error) {
      // ServiceError messages name the endpoint and the reason, never the key.
      process.stderr.write(`estimate failed: ${(error as Error).message}\n`);
      process.exitCode = 1;
    } finally {
      await stop();
    }
  });
}

function worstCaseOf(plan: Plan, total: Micros, priceOf: (job: PlannedJob) => Micros): Micros | null {
  const extra = refusalWorstCase(plan.jobs, plan.steps, priceOf);
  return extra === null ? null : total + extra;
}

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
import type { Plan, PlannedDeriveStep } from '../../plan/index.ts';
import { canonicalJson } from '../../plan/keys.ts';
import type { ReviewCosts } from '../../plan/review-costs.ts';
import { openStore, type Store } from '../../store/index.ts';
import { jsonOutput } from '../json-output.ts';
import type { LeftToRun } from '../left-to-run.ts';
import { type SpecOptions, wholeNumber, withSpecOptions } from '../options.ts';
import { outputOverride } from '../output-location.ts';
import { preflight } from '../preflight.ts';
import { connectPricingService } from '../pricing-service.ts';
import { recordsJson, recordsLines } from '../records-lines.ts';
import { budgetRefusal, budgetText, type RunBudget } from '../run-budget.ts';
import { type PriceGroup, servicePrices } from '../service-prices.ts';
import { deriveStepsJson, table } from './plan.ts';
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
  /** Files made on the worker from their from: steps' outputs, at no cost. */
  readonly deriveSteps: readonly PlannedDeriveStep[];
  readonly localTotal: Micros;
  readonly unpricedLocally: number;
  readonly serviceTotal: Micros;
  readonly outputDir: string;
  /** What the campaign's records make of the plan: recorded (free), left to run, voided approvals. */
  readonly left: LeftToRun;
  /** The jobs left to run, priced as `run` prices them (its preflight: cli/preflight.ts). */
  readonly toRunUsd: Micros;
  readonly balance: Micros;
  /** The budget against what earlier runs paid (cli/run-budget.ts). */
  readonly budget: RunBudget;
  readonly overBudget: boolean;
  readonly overBalance: boolean;
  /** With review gates, of the jobs left: the reviewed steps' cost, before and after approvals. */
  readonly review: ReviewCosts | null;
  /** With `on_refusal: retry | fallback`: the jobs left's cost if every allowed take is refused after it ran. */
  readonly worstCase: Micros | null;
}

type EstimatingClient = Pick<ServiceClient, 'estimate' | 'account'>;

/**
 * The core of the command, testable against any client (the tests use the real emulator). The
 * whole plan is priced by the service; what is left to run after the campaign's records, its
 * price, the review and refusal lines and the verdict are `run`'s own preflight, so `estimate`
 * names the cost `run` will start with.
 */
export async function estimatePlan(
  plan: Plan,
  client: EstimatingClient,
  concurrency = 8,
  store: Store = openStore(plan.outputDir),
): Promise<EstimateReport> {
  const prices = await servicePrices(client, plan.jobs, concurrency);
  const rerun = await preflight(client, plan, store, prices.byKey);
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
    deriveSteps: plan.deriveSteps ?? [],
    localTotal: plan.totalUsd,
    unpricedLocally: plan.unpricedJobs,
    serviceTotal,
    outputDir: plan.outputDir,
    left: rerun.left,
    toRunUsd: rerun.cost,
    balance: rerun.balance,
    budget: rerun.budget,
    overBudget: budgetRefusal(rerun.budget, rerun.toRun, rerun.cost) !== null,
    overBalance: rerun.cost > rerun.balance,
    review: rerun.review,
    worstCase: rerun.worstCase,
  };
}

/** Groups whose local price is known and differs from the service's. */
export function disagreements(report: EstimateReport): PriceGroup[] {
  return report.groups.filter((group) => group.localUsd !== null && group.localUsd !== group.serviceUsd);
}

/** On the jobs left to run, as `run` decides whether to start. */
export function verdict(report: EstimateReport): string {
  const total = formatDollars(report.toRunUsd);
  const budget = budgetText(report.budget);
  const over = [
    report.overBudget &&
      (report.budget.earlier === 0 && report.budget.run === report.budget.campaign
        ? `over the budget of ${formatDollars(report.budget.campaign!)}`
        : `over the ${formatDollars(report.budget.run!)} the budget leaves (${budget})`),
    report.overBalance && `over the balance of ${formatDollars(report.balance)}`,
  ].filter(Boolean);
  if (over.length > 0) return `refused: ${total} is ${over.join(' and ')}`;
  return `ok: ${total} fits (${budget === 'no budget' ? 'no budget set' : budget}, balance ${formatDollars(report.balance)})`;
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
      ...report.deriveSteps.map((step) => [
        step.id,
        'derive',
        `${step.derivativeCount} files`,
        formatDollars(0),
        formatDollars(0),
      ]),
      [
        'total',
        '',
        String(report.jobs),
        local(report.localTotal, report.unpricedLocally),
        formatDollars(report.serviceTotal),
      ],
    ]),
  ];
  lines.push(...recordsLines(report.left, report.jobs, report.outputDir, formatDollars(report.toRunUsd)));
  const differing = disagreements(report);
  if (differing.length > 0) lines.push('disagreements (per job, the service price is used):');
  for (const group of differing) {
    const { prompt: _, ...settings } = group.input;
    lines.push(
      `  ${group.model} ${canonicalJson(settings)}: local ${formatDollars(group.localUsd!)}, service ${formatDollars(group.serviceUsd)} × ${group.jobs} jobs`,
    );
  }
  if (report.review) lines.push(reviewLine(report.review));
  if (report.worstCase !== null) lines.push(refusalLine(report.worstCase, report.budget.run));
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
    output_dir: report.outputDir,
    ...recordsJson(report.left, report.toRunUsd),
    balance_usd: usd(report.balance),
    budget_usd: usd(report.budget.campaign),
    ...(report.budget.perRun !== null && { per_run_budget_usd: usd(report.budget.perRun) }),
    earlier_runs_spent_usd: usd(report.budget.earlier),
    budget_left_usd: usd(report.budget.left),
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
    ...(report.deriveSteps.length > 0 && { derive_steps: deriveStepsJson(report.deriveSteps) }),
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
      .option('--concurrency <n>', 'estimate requests in flight', wholeNumber, 8)
      .option('--output <location>', "the campaign's output location, as given to `run --output`"),
  ).action(async (spec: string, options: SpecOptions & { concurrency: number; output?: string }) => {
    const loaded = await loadPlanOrReport(spec, options);
    if (!loaded) return;
    const plan = options.output ? { ...loaded, outputDir: outputOverride(options.output) } : loaded;
    const { client, stop } = await connectPricingService();
    try {
      const report = await estimatePlan(plan, client, options.concurrency);
      process.stdout.write(options.json ? jsonOutput(estimateJson(report)) : estimateText(report));
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

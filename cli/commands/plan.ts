/**
 * `mediaflow plan <spec>`: what a spec will do, before it does it: per step the job count, model,
 * example names and price, then the total, then what the campaign's records make of it (recorded
 * jobs are free; edited, new and lost ones are left to run, at their catalogue price; approvals an
 * edit voids); or every job as JSON (`--json`, money as decimal strings so no float ever touches
 * it). It asks no service: `estimate` prices with the service.
 */
import type { Command } from 'commander';
import { formatDollars, formatUsd, type Micros } from '../../api/money.ts';
import type { Plan, PlannedDeriveStep } from '../../plan/index.ts';
import { openStore } from '../../store/index.ts';
import { jsonOutput } from '../json-output.ts';
import { type LeftToRun, leftToRun } from '../left-to-run.ts';
import { type SpecOptions, withSpecOptions } from '../options.ts';
import { outputOverride } from '../output-location.ts';
import { recordsJson, recordsLines } from '../records-lines.ts';
import { describeTotal, loadPlanOrReport } from './validate.ts';

const EXAMPLES = 2;

/** The catalogue's price of the jobs left, and how many of them only the service can price. */
function leftPrice(left: LeftToRun): { usd: Micros; unpriced: number } {
  let usd = 0;
  let unpriced = 0;
  for (const { job } of left.toRun) {
    if (job.usd === null) unpriced++;
    else usd += job.usd;
  }
  return { usd, unpriced };
}

export function planJson(plan: Plan, left?: LeftToRun) {
  const price = left && leftPrice(left);
  return {
    campaign: plan.campaign,
    jobs: plan.jobs.map((job) => ({
      key: job.key,
      step: job.step,
      name: job.name,
      model: job.model,
      input: job.input,
      /** Key of the parent job, or null. */
      from: job.parent,
      usd: job.usd === null ? null : formatUsd(job.usd),
    })),
    total_usd: formatUsd(plan.totalUsd),
    ...(plan.deriveSteps && { derive_steps: deriveStepsJson(plan.deriveSteps) }),
    output_dir: plan.outputDir,
    ...(left && price && recordsJson(left, price.usd, price.unpriced)),
  };
}

/** Derive steps make their files on the worker, at no cost: `--json` of plan and estimate says so. */
export function deriveStepsJson(steps: readonly PlannedDeriveStep[]) {
  return steps.map((step) => ({
    id: step.id,
    from: step.from,
    output: step.output,
    derivatives: step.derivativeCount,
    usd: formatUsd(0),
  }));
}

/** Columns padded to their widest cell; the last column is left ragged. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n');
}

function examples(names: readonly string[]): string {
  const more = names.length > EXAMPLES ? `, … (${names.length - EXAMPLES} more)` : '';
  return `${names.slice(0, EXAMPLES).join(', ')}${more}`;
}

export function planTable(plan: Plan, left?: LeftToRun): string {
  const rows = plan.steps.map((step) => {
    const jobs = plan.jobs.filter((job) => job.step === step.id);
    const known = jobs.filter((job) => job.usd !== null);
    const price: Micros = known.reduce((sum, job) => sum + job.usd!, 0);
    const unknown = jobs.length - known.length;
    return [
      step.id,
      step.model,
      step.from ?? '',
      String(step.jobCount),
      unknown > 0 ? `${formatDollars(price)} + ${unknown} by service` : formatDollars(price),
      examples(jobs.map((job) => job.name)),
    ];
  });
  // A derive step's count is of files made from its from: step's outputs, not of jobs.
  const derived = (plan.deriveSteps ?? []).map((step) => [
    step.id,
    'derive',
    step.from,
    `${step.derivativeCount} files`,
    formatDollars(0),
    examples(
      plan.jobs
        .flatMap((job) => job.derivatives ?? [])
        .flatMap((made) => (made.step === step.id ? made.file : [])),
    ),
  ]);
  const lines = [
    table([['step', 'model', 'from', 'jobs', 'price', 'examples'], ...rows, ...derived]),
    '',
    `${plan.campaign}: ${plan.jobs.length} jobs, ${describeTotal(plan)}` +
      (plan.budget === null ? ' (no budget set)' : ` of a ${formatDollars(plan.budget)} budget`),
    `output: ${plan.outputDir}`,
  ];
  if (left) {
    const { usd, unpriced } = leftPrice(left);
    const cost = unpriced > 0 ? `${formatDollars(usd)} + ${unpriced} by service` : formatDollars(usd);
    lines.push(...recordsLines(left, plan.jobs.length, plan.outputDir, cost));
  }
  return `${lines.join('\n')}\n`;
}

export function register(program: Command): void {
  withSpecOptions(
    program
      .command('plan')
      .description('Show the jobs a campaign spec expands to: per step count, model, names and price')
      .argument('<spec>', 'campaign spec (YAML)')
      .option(
        '--json',
        'print { campaign, jobs: [{ key, step, name, model, input, from, usd }], total_usd, output_dir, recorded_jobs, to_run, voided_approvals }',
      )
      .option('--output <location>', "the campaign's output location, as given to `run --output`"),
  ).action(async (spec: string, options: SpecOptions & { output?: string }) => {
    const loaded = await loadPlanOrReport(spec, options);
    if (!loaded) return;
    const plan = options.output ? { ...loaded, outputDir: outputOverride(options.output) } : loaded;
    const left = await leftToRun(plan, openStore(plan.outputDir));
    process.stdout.write(options.json ? jsonOutput(planJson(plan, left)) : planTable(plan, left));
  });
}

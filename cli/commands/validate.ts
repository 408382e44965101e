/**
 * `mediaflow validate <spec>`: checks a campaign spec without spending anything. Prints
 * "ok: N jobs, $X" or every problem as `file:line:col: message` on stderr (exit 1). A plan whose
 * catalogue price is over budget.max_usd is a problem too: `run` would refuse it.
 * `loadPlanOrReport` is shared by `plan`, `estimate` and `run`, so all report problems alike.
 */

import path from 'node:path';
import type { Command } from 'commander';
import { formatDollars, formatUsd } from '../../api/money.ts';
import { fitsBudget } from '../../contract/budget-rule.ts';
import { formatProblem, type Plan } from '../../plan/index.ts';
import { command } from '../invocation.ts';
import { jsonOutput } from '../json-output.ts';
import { type SpecOptions, withSpecOptions } from '../options.ts';
import { planSpecFile } from '../spec-file.ts';

/**
 * The plan, or null after printing its problems and setting exit code 1: on stderr, or with
 * `--json` as `{ ok: false, problems: [{ file, line, column, message }] }` on stdout, so a script
 * reading stdout learns why.
 */
export async function loadPlanOrReport(spec: string, options: SpecOptions = {}): Promise<Plan | null> {
  const result = await planSpecFile(spec, {
    inputRoots: options.allowInputRoot ?? [],
    outputRoots: options.allowOutputRoot ?? [],
    ...(options.maxJobs !== undefined && { maxJobs: options.maxJobs }),
  });
  if (result.ok) return result.plan;
  process.exitCode = 1;
  if (options.json) {
    process.stdout.write(jsonOutput({ ok: false, problems: result.problems }));
    return null;
  }
  // Paths relative to where the user stands read better and stay clickable in terminals.
  for (const problem of result.problems) {
    process.stderr.write(`${formatProblem({ ...problem, file: relative(problem.file) })}\n`);
  }
  process.stderr.write(
    `${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'}\n`,
  );
  return null;
}

/** "$10.20", with the count of jobs only the service can price when there are any. */
export function describeTotal(plan: Plan): string {
  const unpriced = plan.unpricedJobs > 0 ? ` + ${plan.unpricedJobs} jobs priced by the service` : '';
  return `${formatDollars(plan.totalUsd)}${unpriced}`;
}

/**
 * "plan costs $X, over budget.max_usd $Y", or null. Only the catalogue's prices count: jobs only
 * the service can price add to the total, so a plan over budget without them is over with them.
 */
export function overBudget(plan: Plan): string | null {
  if (plan.budget === null || fitsBudget(plan.budget, plan.totalUsd)) return null;
  return `plan costs ${formatDollars(plan.totalUsd)}, over budget.max_usd ${formatDollars(plan.budget)}`;
}

function relative(file: string): string {
  return path.relative(process.cwd(), file);
}

export function register(program: Command): void {
  withSpecOptions(
    program
      .command('validate')
      .description('Check a campaign spec: every problem as file:line:col, or "ok: N jobs, $X"')
      .argument('<spec>', 'campaign spec (YAML)')
      .option(
        '--json',
        'print { ok, jobs, total_usd, unpriced_jobs } or { ok, problems } as JSON (over budget: both)',
      ),
  ).action(async (spec: string, options: SpecOptions) => {
    const plan = await loadPlanOrReport(spec, options);
    if (!plan) return;
    if (options.json) {
      const over = overBudget(plan);
      const body = {
        ok: over === null,
        jobs: plan.jobs.length,
        total_usd: formatUsd(plan.totalUsd),
        unpriced_jobs: plan.unpricedJobs,
        ...(over === null ? {} : { problems: [{ file: plan.specFile, message: over }] }),
      };
      process.stdout.write(jsonOutput(body));
      if (over !== null) process.exitCode = 1;
      return;
    }
    const over = overBudget(plan);
    if (over === null) {
      process.stdout.write(`ok: ${plan.jobs.length} jobs, ${describeTotal(plan)}\n`);
      return;
    }
    process.stderr.write(
      `${relative(plan.specFile)}: ${over}; raise it, or ${command('run', spec, '--allow-over-budget')}` +
        ' runs until the budget is spent\n',
    );
    process.exitCode = 1;
  });
}

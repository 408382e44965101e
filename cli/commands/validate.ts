/**
 * `mediaflow validate <spec>`: checks a campaign spec without spending anything. Prints
 * "ok: N jobs, $X" or every problem as `file:line:col: message` on stderr (exit 1).
 * `loadPlanOrReport` is shared by `plan` and `estimate`, so all three report problems alike.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { formatDollars, formatUsd } from '../../api/money.ts';
import { formatProblem, type Plan, planCampaign } from '../../plan/index.ts';

/** The plan, or null after printing its problems on stderr and setting exit code 1. */
export async function loadPlanOrReport(spec: string): Promise<Plan | null> {
  const result = await planCampaign(spec);
  if (result.ok) return result.plan;
  // Paths relative to where the user stands read better and stay clickable in terminals.
  for (const problem of result.problems) {
    process.stderr.write(
      `${formatProblem({ ...problem, file: path.relative(process.cwd(), problem.file) })}\n`,
    );
  }
  process.stderr.write(
    `${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'}\n`,
  );
  process.exitCode = 1;
  return null;
}

/** "$10.20", with the count of jobs only the service can price when there are any. */
export function describeTotal(plan: Plan): string {
  const unpriced = plan.unpricedJobs > 0 ? ` + ${plan.unpricedJobs} jobs priced by the service` : '';
  return `${formatDollars(plan.totalUsd)}${unpriced}`;
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('Check a campaign spec: every problem as file:line:col, or "ok: N jobs, $X"')
    .argument('<spec>', 'campaign spec (YAML)')
    .option('--json', 'print { ok, jobs, total_usd, unpriced_jobs } or { ok, problems } as JSON')
    .action(async (spec: string, options: { json?: boolean }) => {
      if (options.json) {
        const result = await planCampaign(spec);
        const body = result.ok
          ? {
              ok: true,
              jobs: result.plan.jobs.length,
              total_usd: formatUsd(result.plan.totalUsd),
              unpriced_jobs: result.plan.unpricedJobs,
            }
          : { ok: false, problems: result.problems };
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        if (!result.ok) process.exitCode = 1;
        return;
      }
      const plan = await loadPlanOrReport(spec);
      if (plan) process.stdout.write(`ok: ${plan.jobs.length} jobs, ${describeTotal(plan)}\n`);
    });
}

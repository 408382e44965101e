/**
 * `mediaflow report <spec|campaign>`: writes report.html into the campaign's output folder (in S3
 * mode, into the bucket beside the outputs), the review page read-only (every step as a contact
 * sheet, failures, cost per step, decisions).
 */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { formatDollars, formatUsd } from '../../api/money.ts';
import { campaignProgress } from '../../control/campaign-view.ts';
import { readDecisions } from '../../records/decisions.ts';
import type { CampaignModel } from '../../review/model.ts';
import { spentLines } from '../../review/render.ts';
import { writeReport } from '../../review/report.ts';
import { sourcesOf } from '../../review/sources.ts';
import { isS3Url } from '../../store/index.ts';
import { openCampaign } from '../campaign-pages.ts';
import { openEnvironment } from '../environment.ts';
import { jsonOutput } from '../json-output.ts';
import { loadPlanOrReport } from './validate.ts';

export function register(program: Command): void {
  program
    .command('report <spec|campaign>')
    .description(
      'Write report.html into the output folder (or the S3 prefix): every step as a contact sheet, failures, costs, decisions.',
    )
    .option('--json', 'print { file, spent_usd, superseded_usd, steps } as JSON')
    .action(async (target: string, options: { json?: boolean }) => {
      const env = await openEnvironment({ service: false });
      if (env.embedded && !env.embedded.attached) console.error(env.embedded.summary);
      try {
        const load = existsSync(target)
          ? await fromSpec(target, env)
          : (await openCampaign(env, target)).load;
        if (!load) return;
        const { file, model } = await writeReport(await load());
        process.stdout.write(
          options.json
            ? jsonOutput({
                file,
                spent_usd: formatUsd(model.totals.spent),
                superseded_usd: formatUsd(model.totals.superseded),
                steps: stepLines(model),
              })
            : `${summary(file, model)}\n`,
        );
      } finally {
        await env.close();
      }
    });
}

/** A spec's plan, with whatever Temporal knows of its campaign (nothing, when it never ran there). */
async function fromSpec(spec: string, env: Awaited<ReturnType<typeof openEnvironment>>) {
  const plan = await loadPlanOrReport(spec);
  if (!plan) return null;
  return sourcesOf(plan, {
    readDecisions,
    progress: () =>
      campaignProgress(env.client, plan.campaign).then(
        (view) => view.progress,
        (error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return null;
          throw error;
        },
      ),
  });
}

function stepLines(model: CampaignModel) {
  return model.steps.map((step) => ({
    id: step.id,
    jobs: step.items.length,
    planned_usd: formatUsd(step.plannedUsd),
    spent_usd: formatUsd(step.spentUsd),
    counts: Object.fromEntries(Object.entries(step.counts).filter(([, n]) => n > 0)),
    // Which matrix values the service keeps refusing (review/refusal-rates.ts); empty: none refused.
    refusal_rates: step.refusalRates.map((rate) => ({
      axis: rate.axis,
      value: rate.value,
      jobs: rate.jobs,
      refused_jobs: rate.refusedJobs,
      refusals: rate.refusals,
    })),
  }));
}

/**
 * "spent $5.75 in all runs: $4.09 on this plan's steps, $1.66 paid for jobs an edit removed
 * (superseded)": the campaign's total as `status` says it, and why the steps add up to less.
 */
export function spentLine(model: CampaignModel): string {
  const steps = model.steps.reduce((sum, step) => sum + step.spentUsd, 0);
  const total = `spent ${formatDollars(model.totals.spent)} in all runs`;
  const why = spentLines(model);
  return why.length === 0
    ? total
    : `${total}: ${formatDollars(steps)} on this plan's steps, ${why.join(', ')}`;
}

export function summary(file: string, model: CampaignModel): string {
  const steps = stepLines(model).flatMap((step) => [
    `  ${step.id}: ${step.jobs} jobs, ${Object.entries(step.counts)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ')}; spent $${step.spent_usd} of $${step.planned_usd} planned`,
    // The values refused most, so the prompt to fix is named: "refused: product=watch 2 of 2".
    ...step.refusal_rates
      .filter((rate) => rate.refused_jobs > 0)
      .slice(0, 5)
      .map(
        (rate) =>
          `    refused: ${rate.axis}=${rate.value} ${rate.refused_jobs} of ${rate.jobs} jobs (${rate.refusals} ${rate.refusals === 1 ? 'refusal' : 'refusals'})`,
      ),
  ]);
  const shown = isS3Url(file) ? file : relative(process.cwd(), file) || file;
  return [`wrote ${shown}`, spentLine(model), ...steps].join('\n');
}

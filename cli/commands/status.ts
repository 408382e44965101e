/** `mediaflow status <campaign>`: where a campaign stands, running or finished. */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { campaignProgress, NoWorkerError } from '../../control/campaign.ts';
import { awaitingLine, awaitingReview } from '../campaign-pages.ts';
import { openEnvironment } from '../environment.ts';
import { UserError, unknownCampaign } from '../errors.ts';
import { command } from '../invocation.ts';
import { moneyAsDecimal, statusLine, summaryTable } from '../progress-view.ts';

export function register(program: Command): void {
  program
    .command('status <campaign>')
    .description(
      'Show a campaign’s progress: jobs per step by state, money spent and in flight, failures, ETA.',
    )
    .option('--json', 'print the progress as JSON')
    .action(async (campaign: string, options: { json?: boolean }) => {
      const env = await openEnvironment({ service: false });
      if (env.embedded && !env.embedded.attached) console.error(env.embedded.summary);
      try {
        const { progress, closedAt, paused } = await campaignProgress(env.client, campaign);
        const awaiting = await awaitingReview(env, campaign, progress);
        if (options.json) {
          const awaiting_review = awaiting?.map(({ key, name, step }) => ({ key, name, step })) ?? null;
          console.log(JSON.stringify({ ...progress, paused, awaiting_review }, moneyAsDecimal, 2));
        } else {
          const pause = paused
            ? `\npaused: no worker is polling its task queue; ${env.embedded ? command('run', '<spec>') : command('worker')} resumes it`
            : '';
          const review = awaitingLine(awaiting, progress);
          const reviewLine = review ? `\n${review}; ${command('review', campaign)} opens them` : '';
          console.log(`${statusLine(progress)}${pause}${reviewLine}\n\n${summaryTable(progress, closedAt)}`);
        }
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) throw unknownCampaign(env, campaign);
        if (error instanceof NoWorkerError) {
          throw new UserError(
            error.message,
            env.embedded
              ? `${command('run', '<spec>')} resumes it with a worker`
              : `start one: ${command('worker')}`,
          );
        }
        throw error;
      } finally {
        // The embedded stack, started here or not, keeps running (worker/embedded.ts).
        await env.close();
      }
    });
}

/** `mediaflow status <campaign>`: where a campaign stands, running or finished. */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { campaignProgress, NoWorkerError } from '../../control/campaign-view.ts';
import { awaitingLine, awaitingReview } from '../campaign-pages.ts';
import { campaignTotalOf } from '../campaign-total.ts';
import { campaignDeriveTally, deriveLine } from '../derive-tally.ts';
import { openEnvironment } from '../environment.ts';
import { UserError, unknownCampaign } from '../errors.ts';
import { fitToWidth, widthOf } from '../fit-width.ts';
import { command } from '../invocation.ts';
import { jsonOutput } from '../json-output.ts';
import { notifyLine } from '../notify-line.ts';
import { pauseLine } from '../pause-line.ts';
import { statusLine, summaryTable, TABLE_WIDTH } from '../progress-view.ts';
import { derivedAwaitingLine } from '../review-wait.ts';
import { shownProgress } from '../shown-progress.ts';

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
        const total = await campaignTotalOf(env.client, campaign, progress.spent);
        // The workflow never counts derivatives (docs/derive.md): their records do, as for `run`.
        const derived = await campaignDeriveTally(env.client, campaign);
        // As of now, as `run`'s frame shows it: no time left while paused, awaiting a reviewer,
        // stopping or finished; jobs behind a parent's review waiting; a finished one not submitting.
        const now = shownProgress(progress, { now: Date.now(), paused });
        if (options.json) {
          const awaiting_review = awaiting?.map(({ key, name, step }) => ({ key, name, step })) ?? null;
          const output = { ...now, campaign_spent: total, paused, awaiting_review, derive_steps: derived };
          process.stdout.write(jsonOutput(output));
        } else {
          const pause = paused
            ? `\npaused: no worker is polling its task queue; ${env.embedded ? command('run', '<spec>') : command('worker')} resumes it`
            : '';
          const review = awaitingLine(awaiting, progress);
          const derivedReview = derivedAwaitingLine(progress);
          const reviewLine =
            (review ? `\n${review}; ${command('review', campaign)} opens them` : '') +
            (derivedReview ? `\n${derivedReview}` : '');
          const outage = pauseLine(progress, Date.now());
          const outageLine = outage ? `\n${outage}` : '';
          // Within the terminal, as the live frame keeps to it: below 80 columns too.
          const width = widthOf(process.stdout, TABLE_WIDTH);
          const table = summaryTable(now, closedAt, total, paused, width);
          const line = statusLine(now, total);
          const notices = notifyLine(progress);
          const noticeLine = notices ? `\n${notices}` : '';
          const derivedLine = deriveLine(derived);
          const below = derivedLine ? `\n${derivedLine}` : '';
          const text = `${line}${pause}${outageLine}${reviewLine}${noticeLine}\n\n${table}${below}`;
          // Lines are broken for a narrow terminal only: piped, each stays whole for grep and scripts.
          console.log(process.stdout.isTTY ? fitToWidth(text, width) : text);
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

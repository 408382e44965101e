/** `mediaflow status <campaign>`: where a campaign stands, running or finished. */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { campaignProgress } from '../../worker/campaign-control.ts';
import { openEnvironment } from '../environment.ts';
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
      try {
        const progress = await campaignProgress(env.client, campaign);
        if (options.json) console.log(JSON.stringify(progress, moneyAsDecimal, 2));
        else console.log(`${statusLine(progress)}\n\n${summaryTable(progress)}`);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        console.error(
          `No campaign named "${campaign}" on ${env.temporalAddress} (namespace ${env.namespace}).`,
        );
        process.exitCode = 1;
      } finally {
        // The embedded stack stays up only while another process (a run) uses it.
        await env.close();
      }
    });
}

/**
 * `mediaflow cancel <campaign>`: stops a campaign. Its in-flight predictions are canceled upstream
 * and everything already downloaded stays, with its manifest lines.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { campaignHandle } from '../../worker/campaign-control.ts';
import { openEnvironment } from '../environment.ts';
import { type LocalWorker, startLocalWorker } from '../local-worker.ts';
import { summaryTable } from '../progress-view.ts';

export function register(program: Command): void {
  program
    .command('cancel <campaign>')
    .description(
      'Cancel a running campaign: in-flight predictions are canceled upstream, downloads are kept.',
    )
    .action(async (campaign: string) => {
      const env = await openEnvironment({ service: false });
      let worker: LocalWorker | null = null;
      try {
        const handle = campaignHandle(env.client, campaign);
        await handle.cancel();
        // With the embedded stack no other worker may be up to carry out the cancellation.
        if (env.embedded) worker = await startLocalWorker(env, (await handle.describe()).taskQueue);
        console.log(summaryTable(await handle.result()));
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        console.error(`No running campaign named "${campaign}".`);
        process.exitCode = 1;
      } finally {
        await worker?.stop();
        // The embedded stack stays up only while another process (a run) uses it.
        await env.close();
      }
    });
}

/**
 * `mediaflow cancel <campaign>`: stops a campaign. Its in-flight predictions are canceled upstream
 * and everything already downloaded stays, with its manifest lines. A campaign that has already
 * finished has nothing left to cancel: that is said with its outcome, and is not an error.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { ENGINE, engineOf } from '../../contract/engine.ts';
import { campaignHandle } from '../../control/campaign.ts';
import { campaignView } from '../../control/campaign-view.ts';
import { cancelAcrossRuns } from '../../control/cancel.ts';
import { campaignTotalOf } from '../campaign-total.ts';
import { type Environment, openEnvironment } from '../environment.ts';
import { UserError, unknownCampaign } from '../errors.ts';
import { command } from '../invocation.ts';
import { type LocalWorker, startLocalWorker } from '../local-worker.ts';
import { outcomeLine, summaryTable } from '../progress-view.ts';

export function register(program: Command): void {
  program
    .command('cancel <campaign>')
    .description(
      'Cancel a running campaign: in-flight predictions are canceled upstream, downloads are kept.',
    )
    .action(async (campaign: string) => {
      const env = await openEnvironment({ service: false });
      if (env.embedded && !env.embedded.attached) console.error(env.embedded.summary);
      try {
        await cancel(env, campaign);
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) throw unknownCampaign(env, campaign);
        throw error;
      } finally {
        // The embedded stack, started here or not, keeps running (worker/embedded.ts).
        await env.close();
      }
    });
}

async function cancel(env: Environment, campaign: string): Promise<void> {
  const handle = campaignHandle(env.client, campaign);
  const { status, memo } = await handle.describe();
  if (status.name === 'RUNNING' && env.embedded && engineOf(memo) !== ENGINE) {
    // This process's worker could not replay another engine's history (contract/engine.ts).
    throw new UserError(
      `${campaign} runs on mediaflow engine ${engineOf(memo)}, this is engine ${ENGINE}`,
      `${command('run', '<its spec>')} continues it on this engine from its records; cancel it then`,
    );
  }
  if (status.name === 'RUNNING') {
    // Set inside the callback: a holder, since a `let` assigned there narrows to null out here.
    const local: { worker: LocalWorker | null } = { worker: null };
    try {
      const view = await cancelAcrossRuns(env.client, handle, async (queue) => {
        // With the embedded stack no other worker may be up to carry out the cancellation.
        if (env.embedded) local.worker = await startLocalWorker(env, queue);
      });
      if (view) {
        const { progress, closedAt } = view;
        console.log(
          summaryTable(progress, closedAt, await campaignTotalOf(env.client, campaign, progress.spent)),
        );
        return;
      }
    } catch (error) {
      // It closed between describe() and cancel(): then it finished on its own, said below.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    } finally {
      await local.worker?.stop();
    }
  }
  await alreadyEnded(env, handle, campaign);
}

async function alreadyEnded(
  env: Environment,
  handle: ReturnType<typeof campaignHandle>,
  campaign: string,
): Promise<void> {
  const { status } = await handle.describe();
  if (status.name !== 'COMPLETED') {
    // Terminated, failed or timed out: there is no result to read, only how it ended.
    console.log(`${campaign} had already ended (${status.name.toLowerCase()}): nothing left to cancel.`);
    return;
  }
  const { progress, closedAt } = await campaignView(env.client, handle);
  const total = await campaignTotalOf(env.client, campaign, progress.spent);
  console.log(
    `${campaign} had already finished, nothing left to cancel: ${outcomeLine(progress, closedAt, total)}`,
  );
}

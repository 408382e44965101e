/**
 * A cancel that outlives the run it reached. A cancel request names the workflow, so the server
 * gives it to the current run; when a newer engine ends that run to continue the campaign from its
 * records (handover.ts) before the run took the request, the request ends with the run and the
 * campaign would go on. The run that continues the campaign is canceled in its turn.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, TerminatedFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { campaignWorkflow } from '../workflows/runtime/campaign.ts';
import { type CampaignView, finalView } from './campaign-view.ts';
import { currentRun, HANDOVER_PATIENCE, type Patience } from './handover.ts';

/** Ended by termination: by a newer engine continuing the campaign, or by someone else. */
function terminated(error: unknown): boolean {
  return error instanceof WorkflowFailedError && error.cause instanceof TerminatedFailure;
}

/**
 * Cancels the campaign and waits for its final view, or returns null when no run was left to
 * cancel (it had ended on its own: the caller says how). `served` runs once the first request is
 * sent (the embedded stack starts a worker there, so the run can carry the cancellation out).
 */
export async function cancelAcrossRuns(
  client: Client,
  handle: WorkflowHandle<typeof campaignWorkflow>,
  served: (taskQueue: string) => Promise<void>,
  patience: Patience = HANDOVER_PATIENCE,
): Promise<CampaignView | null> {
  let serving = false;
  for (;;) {
    const run = await currentRun(client, handle, patience);
    if (run.status.name !== 'RUNNING') return null;
    await client.workflow.getHandle(handle.workflowId, run.runId).cancel();
    if (!serving) await served(run.taskQueue);
    serving = true;
    try {
      return await finalView(handle);
    } catch (error) {
      // currentRun tells a handover (wait, then cancel the run that continues) from another end.
      if (!terminated(error)) throw error;
      const after = await currentRun(client, handle, patience);
      if (after.runId === run.runId) throw error;
      await firstTaskRun(client, handle.workflowId, after.runId, patience);
    }
  }
}

/**
 * Waits (within `patience`) for a run to have run its first workflow task: a run canceled before
 * then ends CANCELLED at once, with no progress to report, where a started one winds down and
 * says what it made. Its progress is in the memo from its first task on.
 */
async function firstTaskRun(client: Client, workflowId: string, runId: string, patience: Patience) {
  const deadline = Date.now() + patience.ms;
  const run = client.workflow.getHandle(workflowId, runId);
  while (Date.now() < deadline) {
    const { memo, status } = await run.describe();
    if (memo?.progress !== undefined || status.name !== 'RUNNING') return;
    await sleep(patience.everyMs);
  }
}

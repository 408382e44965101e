/**
 * The client side of a campaign: start it (or attach to the run already under way), read its
 * progress, wait for it, cancel it. The workflow id is derived from the campaign name, so
 * Temporal itself refuses a second concurrent run of one campaign (decision 2).
 */
import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import type { Plan } from '../plan/types.ts';
import type { campaignWorkflow } from '../workflows/campaign.ts';
import { progressQuery } from '../workflows/messages.ts';
import type { CampaignInput, CampaignProgress, PlanRef } from '../workflows/types.ts';
import { TASK_QUEUE } from './create-worker.ts';

/** The workflow's input: the plan by reference plus the few facts the scheduler needs. */
export function campaignInputOf(plan: Plan, ref: PlanRef): CampaignInput {
  return {
    campaign: plan.campaign,
    plan: ref,
    steps: plan.steps.map(({ id, model, retries, concurrency, jobCount }) => ({
      id,
      model,
      retries,
      concurrency,
      jobCount,
    })),
    outputDir: plan.outputDir,
    budget: plan.budget,
    concurrency: plan.concurrency,
  };
}

export function workflowIdOf(campaign: string): string {
  return `mediaflow-${campaign}`;
}

export interface Started {
  readonly handle: WorkflowHandle<typeof campaignWorkflow>;
  /** True when the campaign was already running and we joined it. */
  readonly attached: boolean;
}

export class PlanMismatchError extends Error {}

export async function startOrAttach(
  client: Client,
  input: CampaignInput,
  taskQueue = TASK_QUEUE,
): Promise<Started> {
  const workflowId = workflowIdOf(input.campaign);
  try {
    const handle = await client.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
      workflowId,
      taskQueue,
      args: [input],
      memo: { planDigest: input.plan.digest },
    });
    return { handle, attached: false };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const handle = client.workflow.getHandle<typeof campaignWorkflow>(workflowId);
    const running = (await handle.describe()).memo?.planDigest;
    if (running !== input.plan.digest) {
      throw new PlanMismatchError(
        `campaign "${input.campaign}" is already running a different version of the spec. ` +
          `Wait for it to finish, or stop it with: mediaflow cancel ${input.campaign}`,
      );
    }
    return { handle, attached: true };
  }
}

export function campaignHandle(client: Client, campaign: string): WorkflowHandle<typeof campaignWorkflow> {
  return client.workflow.getHandle<typeof campaignWorkflow>(workflowIdOf(campaign));
}

/**
 * Progress of a running campaign (a query, answered by a worker), or the final progress of a
 * finished one (its result, which needs no worker).
 */
export async function campaignProgress(client: Client, campaign: string): Promise<CampaignProgress> {
  const handle = campaignHandle(client, campaign);
  const { status } = await handle.describe();
  return status.name === 'RUNNING' ? handle.query(progressQuery) : handle.result();
}

export async function cancelCampaign(client: Client, campaign: string): Promise<void> {
  await campaignHandle(client, campaign).cancel();
}

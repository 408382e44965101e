/**
 * A campaign as a client reads it: its progress while it runs (from the memo, so no worker is
 * asked), its final progress once it ended, and whether a worker serves it.
 */
import { type Client, ServiceError, type WorkflowHandle } from '@temporalio/client';
import { progressQuery } from '../contract/campaign-messages.ts';
import { CampaignProgress } from '../contract/progress.ts';
import type { campaignWorkflow } from '../workflows/runtime/campaign.ts';
import { campaignHandle } from './campaign.ts';
import { decoderOf, finishOutagePause } from './finish-outage.ts';
import { workerServing } from './worker-presence.ts';

export interface CampaignView {
  readonly progress: CampaignProgress;
  /**
   * When its last run closed (epoch ms), null while it runs. With `progress.startedAt` (the first
   * run's start, carried across continue-as-new) it gives how long the campaign took, which no
   * later reading of the clock would.
   */
  readonly closedAt: number | null;
  /** Running with no worker polling its task queue: nothing moves until one starts. */
  readonly paused: boolean;
}

export class NoWorkerError extends Error {
  constructor(workflowId: string, taskQueue: string, reason: string) {
    const campaign = workflowId.replace(/^mediaflow-/, ''); // workflowIdOf's prefix
    super(
      `${campaign} is running, but no worker on task queue ${taskQueue} answered for its progress (${reason})`,
    );
  }
}

/** The server's own words (e.g. "no poller seen for task queue recently") behind a client error. */
function grpcDetails(error: ServiceError): string | undefined {
  const { cause } = error;
  return cause && 'details' in cause && typeof cause.details === 'string' ? cause.details : undefined;
}

/**
 * Progress of a running campaign, or the final progress of a finished one (its result). Neither
 * needs a worker. Throws WorkflowNotFoundError when unknown.
 */
export async function campaignProgress(client: Client, campaign: string): Promise<CampaignView> {
  return campaignView(client, campaignHandle(client, campaign));
}

/**
 * A running campaign publishes its progress in its memo (workflows/campaign.ts), which the server
 * answers from its own records: no query, so no worker is asked to apply history for a client
 * (docs/engine.md, "Progress without queries"). Campaigns started before that have only the
 * query, asked of a worker when one polls.
 */
export async function campaignView(
  client: Client,
  handle: WorkflowHandle<typeof campaignWorkflow>,
): Promise<CampaignView> {
  // Without a run id, describe() answers for the latest run: the one whose close ends the campaign.
  const { status, closeTime, taskQueue, memo, raw } = await handle.describe();
  if (status.name !== 'RUNNING') {
    return { progress: await handle.result(), closedAt: closeTime?.getTime() ?? null, paused: false };
  }
  const paused = !(await workerServing(client, taskQueue, raw.pendingWorkflowTask));
  const published = CampaignProgress.safeParse(memo?.progress);
  if (published.success) {
    // Finishes waiting out an outage pause nothing the workflow knows of: named here (finish-outage.ts).
    const waiting = published.data.paused
      ? undefined
      : finishOutagePause(raw.pendingActivities ?? [], decoderOf(client), Date.now());
    const progress =
      waiting && published.data.outcome === 'running'
        ? { ...published.data, paused: waiting }
        : published.data;
    return { progress, closedAt: null, paused };
  }
  // The server holds a query for a poller for half a minute; with none seen, say so at once.
  if (paused) throw new NoWorkerError(handle.workflowId, taskQueue, 'no worker polling it');
  const progress = await handle.query(progressQuery).catch((error: unknown) => {
    if (!(error instanceof ServiceError)) throw error;
    throw new NoWorkerError(handle.workflowId, taskQueue, grpcDetails(error) ?? error.message);
  });
  return { progress, closedAt: null, paused };
}

/** Waits for the campaign to end (a worker has to carry it there) and returns its final view. */
export async function finalView(handle: WorkflowHandle<typeof campaignWorkflow>): Promise<CampaignView> {
  const progress = await handle.result();
  const { closeTime } = await handle.describe();
  return { progress, closedAt: closeTime?.getTime() ?? null, paused: false };
}

/**
 * A campaign as the review pages see it: found by its workflow, its read model's sources, and
 * the `review` update that carries decisions to it. The CLI and the end-to-end test share it.
 */
import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { readDecisions } from '../activities/decisions.ts';
import { REVIEW_UPDATE, ReviewAck } from '../contract/review.ts';
import { campaignHandle, campaignView } from '../worker/campaign-control.ts';
import type { ModelSources } from './model.ts';
import type { SendBatch } from './send.ts';
import { type CampaignStart, campaignStart, openSources } from './sources.ts';

/** Something this process started to answer updates (a worker), stopped with the pages. */
export interface Helper {
  stop(): Promise<unknown>;
}

export interface ReviewCampaign {
  readonly start: CampaignStart;
  readonly load: () => Promise<ModelSources>;
  /** One `review` update, acknowledged by the workflow. */
  readonly send: SendBatch;
  close(): Promise<void>;
}

/** Thrown by send when the campaign is no longer running: nothing awaits a decision. */
export class CampaignEndedError extends Error {}

/** The refusals a validator rejected a batch with: an answer, not an error. */
function refusalsOf(error: unknown): ReviewAck | null {
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure))
    return null;
  const parsed = ReviewAck.safeParse(error.cause.details?.[0]);
  return parsed.success ? parsed.data : null;
}

/**
 * Throws WorkflowNotFoundError for an unknown campaign. `whenPaused` is asked, once, for a worker
 * when a decision is about to be sent and no worker polls the campaign's queue (an update needs
 * one to be answered).
 */
export async function openReviewCampaign(
  client: Client,
  campaign: string,
  whenPaused?: (taskQueue: string) => Promise<Helper>,
): Promise<ReviewCampaign> {
  const handle = campaignHandle(client, campaign);
  const start = await campaignStart(client, handle);
  const load = await openSources(start, {
    readDecisions,
    progress: async () => (await campaignView(client, handle)).progress,
  });
  let helper: Promise<Helper | null> | null = null;
  return {
    start,
    load,
    async send(batch) {
      const { status, taskQueue } = await handle.describe();
      if (status.name !== 'RUNNING') {
        throw new CampaignEndedError(
          `${campaign} has ended (${status.name.toLowerCase()}): nothing awaits a decision`,
        );
      }
      helper ??= (async () => {
        const { paused } = await campaignView(client, handle);
        return paused && whenPaused ? whenPaused(taskQueue) : null;
      })();
      await helper;
      try {
        return ReviewAck.parse(await handle.executeUpdate(REVIEW_UPDATE, { args: [batch] }));
      } catch (error) {
        const refusals = refusalsOf(error);
        if (refusals) return refusals;
        throw error;
      }
    },
    async close() {
      await (await helper)?.stop();
    },
  };
}

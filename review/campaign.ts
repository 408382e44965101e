/**
 * A campaign as the review pages see it: found by its workflow, its read model's sources, and
 * the `review` update that carries decisions to it. The CLI and the end-to-end test share it.
 */
import type { Client } from '@temporalio/client';
import { campaignHandle } from '../control/campaign.ts';
import { campaignView } from '../control/campaign-view.ts';
import { currentRun } from '../control/handover.ts';
import { decisionSender } from '../control/review-decisions.ts';
import { readDecisions } from '../records/decisions.ts';
import type { ModelSources } from './model.ts';
import type { SendBatch } from './send.ts';
import { type CampaignStart, campaignStart, openSources } from './sources.ts';

/** Something this process started to answer updates (a worker), stopped with the pages. */
export interface Helper {
  /** False when it still held work after its grace, left as a crash leaves it (its heartbeat times out). */
  stop(): Promise<boolean>;
}

export interface ReviewCampaign {
  readonly start: CampaignStart;
  readonly load: () => Promise<ModelSources>;
  /** One `review` update, acknowledged by the workflow. */
  readonly send: SendBatch;
  /** Starts the worker now rather than at the first decision (bundling takes seconds). */
  prepare(): Promise<void>;
  /** Stops the helper; false when it left work behind, which keeps the process alive until it ends. */
  close(): Promise<boolean>;
}

/** Thrown by send when the campaign is no longer running: nothing awaits a decision. */
export class CampaignEndedError extends Error {}

/**
 * Throws WorkflowNotFoundError for an unknown campaign. `worker`, when given, is asked once, before
 * the first decision is sent, for a worker of the campaign's task queue: an update waits for a
 * worker to answer it, and on the embedded default a campaign whose `run` was detached has none.
 * Whether one polls cannot be told in time (a detached worker is seen as a poller for two minutes
 * after it left, control/worker-presence.ts), and a second worker beside a `run` still attached
 * only shares its queue, so it is started whenever given.
 */
export async function openReviewCampaign(
  client: Client,
  campaign: string,
  worker?: (taskQueue: string) => Promise<Helper>,
): Promise<ReviewCampaign> {
  const handle = campaignHandle(client, campaign);
  const start = await campaignStart(client, handle);
  const load = await openSources(start, {
    readDecisions,
    progress: async () => (await campaignView(client, handle)).progress,
  });
  let helper: Promise<Helper | null> | null = null;
  /** The campaign's task queue while it runs, with the worker started for it; throws once it ended. */
  const running = async (): Promise<void> => {
    const { status, taskQueue } = await currentRun(client, handle);
    if (status.name !== 'RUNNING') {
      throw new CampaignEndedError(
        `${campaign} has ended (${status.name.toLowerCase()}): nothing awaits a decision`,
      );
    }
    if (helper === null) {
      const starting = worker ? worker(taskQueue) : Promise.resolve(null);
      // A worker that failed to start is tried again with the next decision.
      starting.catch(() => {
        if (helper === starting) helper = null;
      });
      helper = starting;
    }
    await helper;
  };
  return {
    start,
    load,
    prepare: running,
    send: decisionSender(client, handle, running),
    async close() {
      return (await (await helper)?.stop()) ?? true;
    },
  };
}

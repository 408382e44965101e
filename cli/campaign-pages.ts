/**
 * What `review`, `report`, `approve|reject|regenerate` and `status` share: a campaign found by
 * name, its read model's sources, and the `review` update that carries decisions to it.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { readDecisions } from '../activities/decisions.ts';
import {
  REVIEW_UPDATE,
  type ReviewAck,
  ReviewAck as ReviewAckSchema,
  type ReviewBatch,
} from '../contract/review.ts';
import { buildModel, type Item, type ModelSources } from '../review/model.ts';
import { type CampaignStart, campaignStart, openSources } from '../review/sources.ts';
import { campaignHandle, campaignView } from '../worker/campaign-control.ts';
import { unknownCampaign } from './commands/status.ts';
import type { Environment } from './environment.ts';
import { UserError } from './errors.ts';
import { type LocalWorker, startLocalWorker } from './local-worker.ts';

export interface OpenedCampaign {
  readonly start: CampaignStart;
  readonly load: () => Promise<ModelSources>;
  /** One `review` update, acknowledged by the workflow. */
  send(batch: ReviewBatch): Promise<ReviewAck>;
  /** Stops the worker this process started to answer updates, if it did. */
  close(): Promise<void>;
}

export async function openCampaign(env: Environment, campaign: string): Promise<OpenedCampaign> {
  const handle = campaignHandle(env.client, campaign);
  let start: CampaignStart;
  try {
    start = await campaignStart(env.client, handle);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw unknownCampaign(env, campaign);
    throw error;
  }
  const load = await openSources(start, {
    readDecisions,
    progress: async () => (await campaignView(env.client, handle)).progress,
  });
  let worker: Promise<LocalWorker | null> | null = null;
  return {
    start,
    load,
    async send(batch) {
      // An update is answered by a worker. On the embedded default a campaign nobody runs has
      // none (its own task queue, docs/engine.md), so this process carries one, as cancel does.
      const { status, taskQueue } = await handle.describe();
      if (status.name !== 'RUNNING') {
        throw new UserError(
          `${campaign} has ended (${status.name.toLowerCase()}): nothing awaits a decision`,
        );
      }
      worker ??= (async () => {
        const { paused } = await campaignView(env.client, handle);
        return env.embedded && paused ? startLocalWorker(env, taskQueue) : null;
      })();
      await worker;
      const ack: unknown = await handle.executeUpdate(REVIEW_UPDATE, { args: [batch] });
      return ReviewAckSchema.parse(ack);
    },
    async close() {
      await (await worker)?.stop();
    },
  };
}

/** Jobs of reviewed steps waiting for a decision, in plan order (empty when no step is reviewed). */
export async function awaitingReview(env: Environment, campaign: string): Promise<Item[]> {
  const model = buildModel(await (await openCampaign(env, campaign)).load());
  return model.steps.flatMap((step) => step.items.filter((item) => item.state === 'awaiting'));
}

const LISTED = 20;

/** "awaiting review (3): hero-a, hero-b, hero-c", at most 20 names; null when none waits. */
export function awaitingLine(items: readonly Item[]): string | null {
  if (items.length === 0) return null;
  const names = items.slice(0, LISTED).map((item) => item.name);
  const more = items.length > LISTED ? `, … ${items.length - LISTED} more` : '';
  return `awaiting review (${items.length}): ${names.join(', ')}${more}`;
}

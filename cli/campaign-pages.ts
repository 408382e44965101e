/**
 * What `review`, `report`, `approve|reject|regenerate` and `status` share: a campaign found by
 * name (one line when unknown), with a worker of its own queue when it has none to answer
 * decisions (on the embedded default a campaign nobody runs has none: docs/engine.md).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { CampaignProgress } from '../contract/progress.ts';
import { openReviewCampaign, type ReviewCampaign } from '../review/campaign.ts';
import { buildModel, type Item } from '../review/model.ts';
import type { Environment } from './environment.ts';
import { unknownCampaign } from './errors.ts';

/** How long the worker carried for decisions may finish what it holds (a video's wait) on exit. */
const HAND_BACK_MS = 5_000;

/**
 * A worker of the campaign's queue for as long as this command runs. On exit it hands back what
 * it still holds after a few seconds, as a detach does: the next worker picks it up (docs/engine.md).
 */
async function helperWorker(env: Environment, taskQueue: string) {
  // Loaded only when a worker is needed: `status` of most campaigns needs none.
  const { startLocalWorker } = await import('./local-worker.ts');
  const worker = await startLocalWorker(env, taskQueue);
  return { stop: () => worker.stop(HAND_BACK_MS) };
}

export async function openCampaign(env: Environment, campaign: string): Promise<ReviewCampaign> {
  try {
    return await openReviewCampaign(
      env.client,
      campaign,
      env.embedded ? (queue) => helperWorker(env, queue) : undefined,
    );
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw unknownCampaign(env, campaign);
    throw error;
  }
}

/**
 * Jobs of reviewed steps waiting for a decision, in plan order: read only when the progress says
 * some wait, so `status` of other campaigns reads nothing more than before. Null when they could
 * not be read here (the output folder is on the workers' machines): the counts still say how many.
 */
export async function awaitingReview(
  env: Environment,
  campaign: string,
  progress: CampaignProgress,
): Promise<Item[] | null> {
  const waiting = progress.steps.some((step) => (step.awaiting_review ?? 0) > 0);
  if (progress.outcome !== 'running' || !waiting) return [];
  try {
    const model = buildModel(await (await openCampaign(env, campaign)).load());
    return model.steps.flatMap((step) => step.items.filter((item) => item.state === 'awaiting'));
  } catch {
    return null;
  }
}

const LISTED = 20;

/** "awaiting review (3): hero-a, hero-b, hero-c", at most 20 names; null when none waits. */
export function awaitingLine(items: readonly Item[] | null, progress: CampaignProgress): string | null {
  if (items === null) {
    const count = progress.steps.reduce((sum, step) => sum + (step.awaiting_review ?? 0), 0);
    return `awaiting review: ${count} (their names are in the output folder, not readable here)`;
  }
  if (items.length === 0) return null;
  const names = items.slice(0, LISTED).map((item) => item.name);
  const more = items.length > LISTED ? `, … ${items.length - LISTED} more` : '';
  return `awaiting review (${items.length}): ${names.join(', ')}${more}`;
}

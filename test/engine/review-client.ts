/**
 * What the review-gate engine tests share: a spec of three reviewed stills feeding clips, and a
 * client's side of reviewing (the memo polled, never a query; decisions sent as the update).
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { CampaignProgress } from '../../contract/campaign.ts';
import {
  REVIEW_UPDATE,
  type ReviewAck,
  type ReviewBatch,
  type ReviewDecision,
} from '../../contract/review.ts';
import { campaignView } from '../../control/campaign-view.ts';
import type { Plan } from '../../plan/types.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import type { Harness } from './harness.ts';

export type Handle = WorkflowHandle<typeof campaignWorkflow>;

export function reviewedSpec(review: string): string {
  return `
version: 1
campaign: review
budget: { max_usd: 10 }
output: { dir: out }
steps:
  - id: still
    model: I1
    matrix: { product: [kettle, lamp, watch] }
    input: { prompt: "Acme {{product}} on oak", aspect_ratio: "16:9" }
    review: ${review}
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", duration: "5" }
`;
}

/** Polls the memo (never a query) until `ready` holds for the reviewed step's progress. */
export async function until(
  h: Harness,
  handle: Handle,
  ready: (still: CampaignProgress['steps'][number]) => boolean,
) {
  for (let tries = 0; tries < 300; tries++) {
    const view = await campaignView(h.temporal, handle);
    if (ready(view.progress.steps[0]!)) return view.progress;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the campaign never reached the expected review state');
}

export function review(handle: Handle, decisions: ReviewDecision[]): Promise<ReviewAck> {
  return handle.executeUpdate<ReviewAck, [ReviewBatch]>(REVIEW_UPDATE, { args: [{ decisions }] });
}

export const keysOf = (plan: Plan, step: string) =>
  plan.jobs.filter((job) => job.step === step).map((job) => job.key);

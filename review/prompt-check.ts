/**
 * A regeneration's new prompt is checked against its model's limits when the reviewer gives it
 * (page or CLI), before anything is sent: a prompt the service would refuse must not turn a good
 * take into a failed job. The refused decision is never sent, so the job keeps its take.
 */
import { type ModelLabel, promptProblem } from '../api/catalogue/index.ts';
import type { ReviewAck, ReviewDecision } from '../contract/review.ts';
import type { CampaignModel } from './model.ts';
import { BATCH_LIMIT, type SendBatch } from './send.ts';

type Refusal = ReviewAck['refused'][number];

/** Splits decisions into those to send and those refused: for their prompt, or a key of no job. */
export function checkPrompts(
  decisions: readonly ReviewDecision[],
  modelOf: (key: string) => ModelLabel | undefined,
): { valid: ReviewDecision[]; refused: Refusal[] } {
  const valid: ReviewDecision[] = [];
  const refused: Refusal[] = [];
  for (const decision of decisions) {
    const label = modelOf(decision.key);
    // A key of no job is never sent: every decision sent stays in the campaign's history.
    if (label === undefined) {
      refused.push({
        key: decision.key,
        reason: 'unknown_job',
        message: 'no job of this campaign has this key',
      });
      continue;
    }
    const problem = decision.prompt === undefined ? null : promptProblem(label, decision.prompt);
    if (problem === null) valid.push(decision);
    else
      refused.push({
        key: decision.key,
        reason: 'prompt_invalid',
        message: `${problem}; nothing was sent and the current take is kept`,
      });
  }
  return { valid, refused };
}

/**
 * Sends the decisions in batches of the update's limit, in order, so a later decision about a job
 * wins, after refusing those whose prompt the job's model would refuse.
 */
export async function sendChecked(
  decisions: readonly ReviewDecision[],
  model: CampaignModel,
  send: SendBatch,
  derivatives: readonly { key: string; model: ModelLabel }[] = [],
): Promise<ReviewAck> {
  const labels = new Map([
    ...model.steps.flatMap((step) => step.items.map((item) => [item.key, step.model] as const)),
    ...derivatives.map(({ key, model }) => [key, model] as const),
  ]);
  const { valid, refused } = checkPrompts(decisions, (key) => labels.get(key));
  const accepted: string[] = [];
  for (let at = 0; at < valid.length; at += BATCH_LIMIT) {
    const part = await send({ decisions: valid.slice(at, at + BATCH_LIMIT) });
    accepted.push(...part.accepted);
    refused.push(...part.refused);
  }
  return { accepted, refused };
}

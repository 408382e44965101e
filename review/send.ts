/**
 * Decisions to the workflow in batches: the `review` update takes at most 500 (ReviewBatch), so
 * a thousand approvals are two updates, sent in order so a later decision about a job wins.
 */
import type { ReviewAck, ReviewBatch, ReviewDecision } from '../contract/review.ts';

export const BATCH_LIMIT = 500;

export type SendBatch = (batch: ReviewBatch) => Promise<ReviewAck>;

export async function sendAll(decisions: readonly ReviewDecision[], send: SendBatch): Promise<ReviewAck> {
  const ack: { accepted: string[]; refused: ReviewAck['refused'][number][] } = { accepted: [], refused: [] };
  for (let at = 0; at < decisions.length; at += BATCH_LIMIT) {
    const part = await send({ decisions: decisions.slice(at, at + BATCH_LIMIT) });
    ack.accepted.push(...part.accepted);
    ack.refused.push(...part.refused);
  }
  return ack;
}

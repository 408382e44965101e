/**
 * What carries reviewers' decisions to a campaign: one `review` update takes at most 500
 * (ReviewBatch), so a thousand approvals are two updates (prompt-check.ts, sendChecked).
 */
import type { ReviewAck, ReviewBatch } from '../contract/review.ts';

export const BATCH_LIMIT = 500;

export type SendBatch = (batch: ReviewBatch) => Promise<ReviewAck>;

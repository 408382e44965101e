import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { CampaignProgress } from './campaign.ts';
import type { ReviewAck, ReviewBatch } from './review.ts';
import { REVIEW_UPDATE } from './review-update.ts';

/** Live progress: per step counts by state, money spent and committed, recent failures, ETA. */
export const progressQuery = defineQuery<CampaignProgress>('progress');

/**
 * A reviewer's decisions (contract/review.ts): each accepted one is recorded, then acknowledged.
 * A malformed batch, or one none of whose decisions can apply, is rejected by the validator
 * (nothing reaches history); its failure carries the ReviewAck of refusals as details.
 */
export const reviewUpdate = defineUpdate<ReviewAck, [ReviewBatch]>(REVIEW_UPDATE);

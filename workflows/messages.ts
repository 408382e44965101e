import { defineQuery } from '@temporalio/workflow';
import type { CampaignProgress } from '../contract/campaign.ts';

/** Live progress: per step counts by state, money spent and committed, recent failures, ETA. */
export const progressQuery = defineQuery<CampaignProgress>('progress');

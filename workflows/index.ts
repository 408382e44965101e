export { campaignWorkflow } from './campaign.ts';

export { capsWorkflow } from './caps/caps.ts';
export { governorWorkflow } from './governor/governor.ts';
export { campaignWorkflow } from './runtime/campaign.ts';
export { checkAccessWorkflow } from './runtime/check-access.ts';

export { campaignWorkflow } from './campaign.ts';
export { capsWorkflow } from './caps/caps.ts';
export { checkAccessWorkflow } from './check-access.ts';
export { governorWorkflow } from './governor/governor.ts';

/**
 * The campaigns running on a Temporal namespace, by name, from its visibility store. Visibility is
 * eventually consistent: a campaign started a moment ago may be missing from one listing and
 * appear in the next, which an inbox reloaded every few seconds can live with.
 */
import type { Client } from '@temporalio/client';
import { workflowIdOf } from './campaign.ts';
import { CAPS_WORKFLOW } from './caps.ts';
import { GOVERNOR_WORKFLOW } from './governor.ts';

const PREFIX = workflowIdOf('');
const CAMPAIGNS = 'ExecutionStatus="Running" AND WorkflowType="campaignWorkflow"';
/**
 * mediaflow's own services are not work: a key's rate governor and a spend cap's ledger hold
 * nothing to lose, and the governor ends a minute after its last campaign leaves.
 */
const WORK = `ExecutionStatus="Running" AND WorkflowType!="${GOVERNOR_WORKFLOW}" AND WorkflowType!="${CAPS_WORKFLOW}"`;

/** Running campaigns by name: what the review inbox looks through (only they hold takes to review). */
export async function runningCampaigns(client: Client): Promise<string[]> {
  const ids = await runningIds(client, CAMPAIGNS);
  return ids.flatMap((id) => campaignOf(id) ?? []).sort();
}

/**
 * Every running workflow but mediaflow's own services, campaigns by name, any other workflow as
 * `<id> (not a campaign)`: what keeps `stack stop` from stopping a namespace others may share.
 */
export async function runningWorkflows(client: Client): Promise<string[]> {
  const ids = await runningIds(client, WORK);
  return ids.map((id) => campaignOf(id) ?? `${id} (not a campaign)`).sort();
}

/** The campaign a workflow id names (workflowIdOf), or null for another workflow. */
function campaignOf(id: string): string | null {
  return id.startsWith(PREFIX) ? id.slice(PREFIX.length) : null;
}

async function runningIds(client: Client, query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const { workflowId } of client.workflow.list({ query })) ids.push(workflowId);
  return ids;
}

/**
 * The campaigns running on a Temporal namespace, by name, from its visibility store: what the
 * review inbox looks through (only a running campaign can hold takes for review). Visibility is
 * eventually consistent: a campaign started a moment ago may be missing from one listing and
 * appear in the next, which an inbox reloaded every few seconds can live with.
 */
import type { Client } from '@temporalio/client';
import { workflowIdOf } from './campaign.ts';

const PREFIX = workflowIdOf('');
const QUERY = 'ExecutionStatus="Running" AND WorkflowType="campaignWorkflow"';

export async function runningCampaigns(client: Client): Promise<string[]> {
  const names: string[] = [];
  for await (const workflow of client.workflow.list({ query: QUERY })) {
    if (workflow.workflowId.startsWith(PREFIX)) names.push(workflow.workflowId.slice(PREFIX.length));
  }
  return names.sort();
}

/**
 * A campaign canceled: nothing new starts, every prediction it made is canceled upstream (creates
 * under way land first, so the claims log names their predictions; heirs made meanwhile get a
 * second pass), and the workflow completes with outcome `canceled`.
 */
import { CancellationScope } from '@temporalio/workflow';
import type { CampaignInput, CampaignProgress } from '../../contract/campaign.ts';
import type { Model } from '../engine/model.ts';
import { campaignProgress } from '../engine/notices/progress.ts';
import type { Executor } from './executor.ts';

export async function cancelCampaign(
  model: Model,
  executor: Executor,
  input: CampaignInput,
): Promise<CampaignProgress> {
  // Taken in the canceled scope, as every event before it: what it starts there is what it always started.
  executor.dispatch({ kind: 'cancel-requested' });
  await CancellationScope.nonCancellable(async () => {
    await executor.cancelPasses();
    await executor.told();
  });
  // Completing (rather than rethrowing) keeps the final progress readable as the result, with
  // outcome 'canceled', by `status` and `cancel` even when no worker is up to answer queries.
  return campaignProgress(model.jobs, input.campaign, Date.now());
}

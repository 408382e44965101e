/**
 * A campaign canceled: nothing new starts, every prediction it made is canceled upstream (creates
 * under way land first, so the claims log names their predictions; heirs made meanwhile get a
 * second pass), and the workflow completes with outcome `canceled`.
 */
import { CancellationScope, condition } from '@temporalio/workflow';
import type { CampaignInput, CampaignProgress } from '../../contract/campaign.ts';
import type { Model } from '../engine/model.ts';
import { campaignProgress } from '../engine/notices/progress.ts';
import { cancelOutstanding } from './activities.ts';
import type { Executor } from './executor.ts';
import { CANCEL_SUMMARY } from './summaries.ts';

export async function cancelCampaign(
  model: Model,
  executor: Executor,
  input: CampaignInput,
): Promise<CampaignProgress> {
  const context = { campaign: input.campaign, plan: input.plan, outputDir: input.outputDir };
  const { run } = model;
  executor.dispatch({ kind: 'cancel-requested' });
  await CancellationScope.nonCancellable(async () => {
    // Let creates under way land, so the predictions they made are in the claims log too.
    await condition(() => run.creating === 0);
    await cancelOutstanding.executeWithOptions({ summary: CANCEL_SUMMARY }, [context]);
    // Heirs created while their predecessors were being canceled are canceled in turn.
    if (run.chaining > 0) {
      await condition(() => run.chaining === 0);
      await cancelOutstanding.executeWithOptions({ summary: CANCEL_SUMMARY }, [context]);
    }
    executor.dispatch({ kind: 'canceled' });
    await executor.told();
  });
  // Completing (rather than rethrowing) keeps the final progress readable as the result, with
  // outcome 'canceled', by `status` and `cancel` even when no worker is up to answer queries.
  return campaignProgress(model.jobs, input.campaign, Date.now());
}

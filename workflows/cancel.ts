/**
 * A campaign canceled: nothing new starts, every prediction it made is canceled upstream (creates
 * under way land first, so the claims log names their predictions; heirs made meanwhile get a
 * second pass), and the workflow completes with outcome `canceled`.
 */
import { CancellationScope, condition, log } from '@temporalio/workflow';
import type { CampaignProgress } from '../contract/campaign.ts';
import { cancelOutstanding } from './activities.ts';
import type { CampaignState } from './campaign-state.ts';
import type { GovernorLink } from './governor/link.ts';
import type { Campaign } from './reactions.ts';
import type { RunState } from './run-state.ts';
import { CANCEL_SUMMARY } from './summaries.ts';

export interface Canceling {
  readonly state: CampaignState;
  readonly run: RunState;
  readonly context: Campaign['context'];
  readonly governor: GovernorLink | null;
  readonly publish: (idleFor: number | null, final: boolean) => void;
}

export async function cancelCampaign({
  state,
  run,
  context,
  governor,
  publish,
}: Canceling): Promise<CampaignProgress> {
  run.cancelled = true;
  await CancellationScope.nonCancellable(async () => {
    // Let creates under way land, so the predictions they made are in the claims log too.
    await condition(() => run.creating === 0);
    await cancelOutstanding.executeWithOptions({ summary: CANCEL_SUMMARY }, [context]);
    // Heirs created while their predecessors were being canceled are canceled in turn.
    if (run.chaining > 0) {
      await condition(() => run.chaining === 0);
      await cancelOutstanding.executeWithOptions({ summary: CANCEL_SUMMARY }, [context]);
    }
    if (governor) await governor.leave();
  });
  state.cancelAll();
  publish(null, true);
  log.info('campaign canceled', { campaign: context.campaign });
  // Completing (rather than rethrowing) keeps the final progress readable as the result, with
  // outcome 'canceled', by `status` and `cancel` even when no worker is up to answer queries.
  return state.progress(context.campaign, Date.now());
}

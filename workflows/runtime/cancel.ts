/**
 * A campaign canceled: nothing new starts, every prediction it made is canceled upstream (creates
 * under way land first, so the claims log names their predictions; heirs made meanwhile get a
 * second pass), and the workflow completes with outcome `canceled`.
 */
import { CancellationScope, log } from '@temporalio/workflow';
import type { CampaignInput, CampaignProgress } from '../../contract/campaign.ts';
import { openCampaign } from '../engine/jobs/carry-over.ts';
import { cancelAll } from '../engine/jobs/transitions.ts';
import type { Model } from '../engine/model.ts';
import { campaignProgress } from '../engine/notices/progress.ts';
import type { GovernorLink } from '../governor/link.ts';
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

/**
 * Canceled before the campaign opened (while it read the service's limits or waited on its first
 * share; a cancel sent before any worker ran it lands there): nothing was created, so nothing is
 * canceled upstream, and it completes as any canceled campaign does, every job not run, rather
 * than in Temporal's Canceled state with no progress for `status` to read.
 */
export async function canceledAtStart(
  input: CampaignInput,
  link: GovernorLink | null,
): Promise<CampaignProgress> {
  // The governor may have counted it in while it waited for its share.
  await CancellationScope.nonCancellable(async () => link?.tell({ kind: 'leave' }));
  // Opened only to say what was not run: no limits were read, and none are needed for that.
  const jobs = openCampaign(input.steps, input.plan.jobCount, input.concurrency, input.budget, {
    limits: { createsPerSecond: 0, maxInFlight: 0 },
    now: Date.now(),
  });
  cancelAll(jobs);
  log.info('campaign canceled before its first job', { campaign: input.campaign });
  return campaignProgress(jobs, input.campaign, Date.now());
}

/**
 * The campaign's progress as every reader sees it, from one function: the memo `status` reads, the
 * result a finished campaign returns and the query a debugging client asks. Each used to add its
 * own extras (the memo named an outage's pause, the query named nothing), so one campaign could
 * show two states at once.
 */
import type { CampaignProgress } from '../contract/campaign.ts';
import { capLine } from '../contract/caps.ts';
import * as Jobs from './campaign-state.ts';
import { withPause } from './outage.ts';
import type { Model } from './reducer/model.ts';
import * as Notices from './state/notices.ts';

/** The jobs' progress, the cap holding it, the notices' deliveries (when the campaign has targets) and the pause in force. */
export function progressOf(model: Model, campaign: string, now: number): CampaignProgress {
  const progress = Jobs.progress(model.jobs, campaign, now);
  const hold = model.jobs.allowance?.hold;
  const held =
    hold && progress.outcome === 'running' ? { ...progress, cap_reached: capLine(hold) } : progress;
  const told = model.notices ? { ...held, notifications: Notices.tally(model.notices) } : held;
  return withPause(told, model.run.outage.current);
}

/**
 * A campaign's progress as it is shown, at one moment: `run`'s frame, `status`'s text and
 * `status --json` all read it through here, so none of them says what another contradicts, and
 * a memo published by an older mediaflow (or left by a worker that is gone) reads the same way.
 */
import type { CampaignProgress, StepProgress } from '../contract/campaign.ts';
import { endedOf } from '../contract/ended-jobs.ts';
import { etaAt } from './live-frame.ts';
import { reviewWait } from './review-wait.ts';

export interface Moment {
  /** The reader's clock, ms since the epoch. */
  readonly now: number;
  /** No worker serves the campaign (control/worker-presence.ts): nothing moves until one runs. */
  readonly paused: boolean;
}

export function shownProgress(p: CampaignProgress, { now, paused }: Moment): CampaignProgress {
  // Only a running campaign that still submits will start another job.
  const submitting = p.outcome === 'running' && p.submitting !== false;
  const steps = p.steps.map((s) => stepShown(s, submitting));
  const shown = { ...p, steps, submitting };
  // No time left to estimate once nothing more will run (finished, stopping), while nothing runs
  // at all (paused), or while the next move is a reviewer's: no rate of finishing says when.
  const etaMs = !submitting || paused || reviewWait(shown).only ? null : etaAt(p, now);
  return { ...shown, etaMs };
}

/**
 * Waiting: every job the campaign can still run and has not started, those whose parent (or its
 * review) holds them included; none once it stopped submitting, when they are "not run". Older
 * memos counted only jobs ready to start, so clips behind a review gate were counted nowhere.
 */
function stepShown(s: StepProgress, submitting: boolean): StepProgress {
  const left = Math.max(0, s.planned - endedOf(s) - s.running);
  return { ...s, waiting: submitting ? Math.max(s.waiting, left) : 0 };
}

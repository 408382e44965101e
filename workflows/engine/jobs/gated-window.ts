/**
 * What review gates do to the window (docs/engine.md, "Review gates"): jobs read from the plan
 * are held back while an ancestor awaits review, or skipped below a rejected one; a saved take of
 * a reviewed step parks its descendants; and jobs read again for what decisions released run, are
 * skipped, or are made again. The gates' bookkeeping is reviews/reviews.ts, their rules
 * reviews/review-rules.ts.
 */
import type { CreateOutcome, Underived } from '../../../contract/activities.ts';
import type { JobRef } from '../../../contract/campaign.ts';
import type { CampaignState } from '../model.ts';
import { gated, type Span } from '../reviews/review-rules.ts';
import { filters, open, openDerived, parks, prune, recall, served, skips } from '../reviews/reviews.ts';
import { count, retake } from './tally.ts';
import * as Window from './window.ts';

/** What a create found recorded for a cached job: its take and the decision recorded for it. */
export type Recorded = Omit<Extract<CreateOutcome, { kind: 'cached' }>, 'kind' | 'i'>;

/** Jobs read from the plan; descendants of jobs awaiting review stay out, those of rejected ones are skipped. */
export function admit(s: CampaignState, jobs: readonly JobRef[]): void {
  const { window, tally, reviews } = s;
  if (!filters(reviews)) {
    Window.admit(window, jobs);
    return;
  }
  const kept = jobs.filter((job) => {
    if (parks(reviews, job.i)) return false;
    if (!skips(reviews, job.i)) return true;
    count(tally, job.step, 'skipped');
    return false;
  });
  Window.admit(window, kept, jobs.length);
  prune(reviews, window.cursor);
}

/**
 * A take of a reviewed step is saved at campaign time `now` (`cached`: found recorded): it waits
 * for a decision, its descendants with it; so do its reviewed derivatives, but those that could
 * not be made (`underived`).
 */
export function saved(
  s: CampaignState,
  job: JobRef,
  take: number,
  now: number,
  cached = false,
  underived?: Underived,
): void {
  if (job.derived) openDerived(s.reviews, job, take, now, { underived });
  if (!gated(s.steps, job.step)) return;
  open(s.reviews, job, take, now, cached);
  if (job.end) Window.park(s.window, job.i, job.end);
}

/** A job found recorded: a decision recorded for its take applies again, else it is asked. */
export function cached(s: CampaignState, job: JobRef, recorded: Recorded, now: number): void {
  const take = recorded.take ?? 0;
  if (job.derived)
    openDerived(s.reviews, job, take, now, {
      verdicts: recorded.derived ?? [],
      underived: recorded.underived,
    });
  if (!gated(s.steps, job.step)) return;
  if (!recorded.verdict) {
    open(s.reviews, job, take, now, true);
    if (job.end) Window.park(s.window, job.i, job.end);
    return;
  }
  const { action, prompt } = recorded.verdict;
  recall(s.reviews, job, take, action, prompt, { now, cursor: s.window.cursor });
  if (action !== 'approve' && job.end) Window.park(s.window, job.i, job.end);
}

/** Jobs read for indexes decisions released: descendants run or are skipped, or a job is retaken. */
export function released(s: CampaignState, span: Span, jobs: readonly JobRef[]): void {
  const { window, tally, reviews } = s;
  for (const { release, jobs: its } of served(reviews, span, jobs)) {
    if (release.effect === 'admit')
      Window.readmit(
        window,
        its.filter((job) => !parks(reviews, job.i)),
      );
    if (release.effect === 'skip') for (const job of its) count(tally, job.step, 'skipped');
    if (release.effect !== 'retake') continue;
    const regen = release.regen ?? 0;
    const prompt = release.prompt === undefined ? {} : { prompt: release.prompt };
    for (const job of its) {
      // The job is made again: it leaves the outcome its take was counted under until the new one ends.
      retake(tally, job.step, release.cached ? 'cached' : 'succeeded');
      Window.putBack(window, { job, regen, retake: true, retriesFrom: regen, ...prompt });
    }
  }
}

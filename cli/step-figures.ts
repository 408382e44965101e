/**
 * What a step's counts add up to, defined once for `run`'s frame, `status`'s line and the summary
 * table: the frame's headline once counted jobs ended (a skipped clip among them) while the bars
 * beside it counted jobs done, so `7/12 jobs` stood over bars reading `6/6` and `0/6`.
 */
import type { CampaignProgress, StepProgress } from '../contract/campaign.ts';

/** Done: its output exists, made in this run or recorded by an earlier one. */
export const doneOf = (s: StepProgress): number => s.succeeded + s.cached;

/** The headline: `6/12 done`, the sum of the bars' `6/6` and `0/6` (jobs done of jobs planned). */
export function jobsDone(p: CampaignProgress): string {
  const done = p.steps.reduce((n, s) => n + doneOf(s), 0);
  const planned = p.steps.reduce((n, s) => n + s.planned, 0);
  return `${done}/${planned} done`;
}

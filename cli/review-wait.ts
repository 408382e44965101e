/**
 * What a campaign waits on reviewers for, as the live frame, `status` and `run`'s hint say it: the
 * outputs of reviewed steps and the files of reviewed derive steps (docs/review.md).
 */
import type { CampaignProgress } from '../contract/progress.ts';
import { command } from './invocation.ts';

/**
 * Outputs waiting for a reviewer's decision, and whether that is all the campaign waits for
 * (nothing in flight): then no ETA means anything, the next move is a person's.
 */
export function reviewWait(p: CampaignProgress): { awaiting: number; only: boolean } {
  const jobs = p.steps.reduce((n, s) => n + (s.awaiting_review ?? 0), 0);
  // Files of reviewed derive steps wait as outputs do (docs/review.md, "Derivatives").
  const awaiting = jobs + derivedAwaiting(p);
  return { awaiting, only: awaiting > 0 && p.steps.every((s) => s.running === 0) };
}

/** Files of reviewed derive steps waiting for a decision, all steps together. */
function derivedAwaiting(p: CampaignProgress): number {
  return (p.derivedAwaiting ?? []).reduce((n, d) => n + d.awaiting, 0);
}

/**
 * `awaiting review: square 2 files; mediaflow approve|reject <campaign> 'square/*'`: the files of
 * reviewed derive steps, decided from the commands (their channel cards are read-only); null when
 * none waits.
 */
export function derivedAwaitingLine(progress: CampaignProgress): string | null {
  const waiting = (progress.derivedAwaiting ?? []).filter((d) => d.awaiting > 0);
  if (progress.outcome !== 'running' || waiting.length === 0) return null;
  const files = waiting.map((d) => `${d.step} ${d.awaiting} ${d.awaiting === 1 ? 'file' : 'files'}`);
  const glob = `'${waiting[0]!.step}/*'`;
  return `awaiting review: ${files.join(', ')}; ${command('approve', progress.campaign, glob)} (or reject) decides them`;
}

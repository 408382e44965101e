/**
 * What `run` exits with (the table in README.md, "Exit codes"): 0 when the campaign did what it
 * was asked, else a code per kind of ending and one line saying why. A job a reviewer rejected,
 * and the jobs made from it, were asked not to be made: that is not a failure.
 */
import type { CampaignProgress } from '../contract/campaign.ts';
import { OUTCOMES } from './outcomes.ts';

export const EXIT = {
  done: 0,
  /** The campaign did not start or could not be followed: an invalid spec, a refusal, an error. */
  error: 1,
  failed: 2,
  stopped: 3,
  canceled: 4,
  /** Ctrl-C: this process detached, the campaign goes on (128 + SIGINT, as shells count it). */
  detached: 130,
} as const;

export interface Exit {
  readonly code: number;
  /** One line for stderr; null on success. */
  readonly reason: string | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Outcomes whose fix is done to the output folder: the line names it. */
const ABOUT_THE_FOLDER = new Set<CampaignProgress['outcome']>(['disk_full', 'output_unwritable']);

export function exitOf(p: CampaignProgress, outputDir?: string): Exit {
  const sum = (count: (s: CampaignProgress['steps'][number]) => number) =>
    p.steps.reduce((n, s) => n + count(s), 0);
  if (p.outcome === 'canceled') return { code: EXIT.canceled, reason: 'the campaign was canceled' };
  if (p.outcome !== 'completed') {
    const { says, fix } = OUTCOMES[p.outcome];
    return {
      code: EXIT.stopped,
      reason: fix
        ? `${says}${outputDir && ABOUT_THE_FOLDER.has(p.outcome) ? ` (output.dir: ${outputDir})` : ''}; to go on: ${fix}`
        : `${says}; nothing more was submitted`,
    };
  }
  const failed = sum((s) => s.failed);
  const missing = sum((s) => s.planned - s.succeeded - s.cached - s.skipped);
  if (failed > 0) {
    return {
      code: EXIT.failed,
      reason: `${plural(failed, 'job')} failed; run the same spec again to retry them (finished jobs are not paid again)`,
    };
  }
  // Completed with no failure: every job has its file or was skipped because its source was rejected.
  if (missing > 0) return { code: EXIT.failed, reason: `${plural(missing, 'job')} ended without a file` };
  return { code: EXIT.done, reason: null };
}

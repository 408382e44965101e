/**
 * What `run` exits with, as a table over the campaign's final progress (cli/exit-codes.ts): 0 when
 * it did what it was asked, rejected stills and their skipped clips included; else a code per kind
 * of ending, with one line saying why. No Temporal here.
 */
import { describe, expect, it } from 'vitest';
import { exitOf } from '../../cli/exit-codes.ts';
import type { CampaignOutcome, CampaignProgress, StepProgress } from '../../contract/campaign.ts';
import { progressWith } from '../helpers/progress.ts';

function step(id: string, counts: Partial<StepProgress>): StepProgress {
  const zero = { running: 0, waiting: 0, succeeded: 0, cached: 0, failed: 0, skipped: 0, canceled: 0 };
  return { id, model: 'I1', planned: 12, created: 0, regenerated: 0, ...zero, ...counts };
}

function ended(
  outcome: CampaignOutcome,
  still: Partial<StepProgress>,
  clip: Partial<StepProgress>,
): CampaignProgress {
  return progressWith([step('still', still), step('clip', clip)], { outcome });
}

const rows: [string, CampaignProgress, number, RegExp | null][] = [
  ['every job made', ended('completed', { succeeded: 12 }, { succeeded: 12 }), 0, null],
  ['made in an earlier run', ended('completed', { cached: 12 }, { cached: 4, succeeded: 8 }), 0, null],
  [
    'reviewed: two stills rejected (their clips skipped), two retaken, every approved job made',
    ended(
      'completed',
      { succeeded: 12, regenerated: 2, approved: 10, rejected: 2, awaiting_review: 0 },
      { succeeded: 10, skipped: 2 },
    ),
    0,
    null,
  ],
  [
    'a still failed, its clip skipped',
    ended('completed', { succeeded: 11, failed: 1 }, { succeeded: 11, skipped: 1 }),
    2,
    /^1 job failed; run the same spec again to retry them/,
  ],
  [
    'stopped at the budget',
    ended('budget_reached', { succeeded: 12 }, { succeeded: 3 }),
    3,
    /^Stopped at the budget .*; nothing more was submitted$/,
  ],
  [
    'the account ran out of credits',
    ended('balance_exhausted', { succeeded: 12 }, { succeeded: 3 }),
    3,
    /^Stopped: the account ran out of credits; to go on: add credits/,
  ],
  ['canceled', ended('canceled', { succeeded: 6, canceled: 2 }, {}), 4, /^the campaign was canceled$/],
];

describe('exitOf: what run exits with', () => {
  it.each(rows)('%s', (_, progress, code, reason) => {
    const exit = exitOf(progress);
    expect(exit.code).toBe(code);
    if (reason === null) expect(exit.reason).toBeNull();
    else expect(exit.reason).toMatch(reason);
    // A reason is one line.
    expect(exit.reason ?? '').not.toContain('\n');
  });
});

/**
 * `MediaflowJobsFailed` (workflows/search-attributes.ts): a reviewed campaign whose rejected
 * stills' clips were skipped did all it was asked, so the README's "partial campaign" query
 * (`MediaflowOutcome="completed" AND MediaflowJobsFailed > 0`) does not list it; skips below a
 * failure still count.
 */
import { describe, expect, it } from 'vitest';
import type { CampaignProgress, StepProgress } from '../../contract/campaign.ts';
import { JOBS_FAILED_KEY, progressAttributes } from '../../workflows/runtime/search-attributes.ts';

const step = (id: string, counts: Partial<StepProgress>): StepProgress => ({
  id,
  model: 'I1',
  planned: 4,
  created: 0,
  regenerated: 0,
  running: 0,
  waiting: 0,
  succeeded: 0,
  cached: 0,
  failed: 0,
  skipped: 0,
  canceled: 0,
  ...counts,
});

const failedOf = (steps: StepProgress[]) => {
  const progress: CampaignProgress = {
    campaign: 'c',
    outcome: 'completed',
    steps,
    spent: 0,
    committed: 0,
    budget: null,
    recentFailures: [],
    startedAt: 0,
    etaMs: null,
    runs: 1,
  };
  return progressAttributes(progress).find((pair) => pair.key === JOBS_FAILED_KEY)?.value;
};

describe('MediaflowJobsFailed', () => {
  it('a still rejected in review, its clip skipped: no failure', () => {
    expect(
      failedOf([
        step('still', { succeeded: 4, approved: 3, rejected: 1 }),
        step('clip', { succeeded: 3, skipped: 1 }),
      ]),
    ).toBe(0);
  });

  it('a failed still and the clip skipped below it: both', () => {
    expect(
      failedOf([step('still', { succeeded: 3, failed: 1 }), step('clip', { succeeded: 3, skipped: 1 })]),
    ).toBe(2);
  });
});

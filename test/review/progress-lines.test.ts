/**
 * What `run` and `status` say of a campaign that waits for reviewers: how many outputs await a
 * decision, and no ETA while nothing but a person can move it.
 */
import { describe, expect, it } from 'vitest';
import { renderFrame } from '../../cli/live-frame.ts';
import { statusLine, summaryTable } from '../../cli/progress-view.ts';
import type { CampaignProgress, StepProgress } from '../../contract/progress.ts';

const step = (fields: Partial<StepProgress>): StepProgress => ({
  id: 'still',
  model: 'I1',
  planned: 12,
  running: 0,
  waiting: 0,
  succeeded: 12,
  cached: 0,
  failed: 0,
  skipped: 0,
  canceled: 0,
  created: 12,
  regenerated: 0,
  ...fields,
});

function waitingForReviews(running: number): CampaignProgress {
  return {
    campaign: 'review-launch',
    outcome: 'running',
    steps: [
      step({ awaiting_review: 8, approved: 3, rejected: 1 }),
      step({ id: 'clip', model: 'V4', succeeded: 1, skipped: 1, running, waiting: 10 - running }),
    ],
    spent: 2_090_000,
    committed: 0,
    budget: 20_000_000,
    recentFailures: [],
    startedAt: 0,
    etaMs: 36_000,
    runs: 1,
  };
}

describe('a campaign waiting for reviews', () => {
  it('says how many outputs await a decision, with no ETA when nothing else moves', () => {
    expect(statusLine(waitingForReviews(0))).toBe(
      'review-launch: 13/24 done, spent $2.09 + $0.00 committed, budget $20.00, 8 awaiting review',
    );
    expect(renderFrame(waitingForReviews(0), { width: 100, etaMs: 36_000, paused: false }).at(-1)).toMatch(
      / · 8 awaiting review$/,
    );
  });

  it('keeps the ETA while videos are still being made', () => {
    expect(statusLine(waitingForReviews(2))).toMatch(/, 8 awaiting review, about 36s left$/);
    expect(renderFrame(waitingForReviews(2), { width: 100, etaMs: 36_000, paused: false }).at(-1)).toMatch(
      / · ETA 36s$/,
    );
  });

  it('shows the reviews in the summary table', () => {
    // The review columns may be in a second table (the summary keeps to 80 columns).
    const table = summaryTable(waitingForReviews(0)).split('\n');
    const at = table.findIndex((line) => line.includes('awaiting review'));
    const [header, still] = table.slice(at);
    expect(header).toMatch(/\bawaiting review\s+approved\s+rejected$/);
    expect(still).toMatch(/\b8\s+3\s+1$/);
  });
});

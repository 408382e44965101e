/**
 * `status` in a terminal under 80 columns: the table splits into narrower tables and every other
 * line breaks at a space, continued indented, so nothing reaches the terminal's edge to be wrapped
 * mid-word into fragments (the live frame already kept to the width; now `status` does too).
 */
import { describe, expect, it } from 'vitest';
import { fitToWidth, widthOf } from '../../cli/fit-width.ts';
import { statusLine, summaryTable } from '../../cli/progress-view.ts';
import type { CampaignProgress, StepProgress } from '../../contract/campaign.ts';

const step = (id: string, counts: Partial<StepProgress>): StepProgress => ({
  id,
  model: 'I4',
  planned: 12,
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

const progress: CampaignProgress = {
  campaign: 'spring-launch',
  outcome: 'running',
  steps: [
    step('still', { succeeded: 4, failed: 1, skipped: 2, running: 3, waiting: 2, regenerated: 2 }),
    step('clip', { succeeded: 1, running: 2, waiting: 9 }),
  ],
  spent: 1_230_000,
  committed: 450_000,
  budget: 40_000_000,
  recentFailures: [{ step: 'still', job: 'still-watch-marble', message: 'the service refused the prompt' }],
  startedAt: 0,
  etaMs: 83_000,
  runs: 1,
};

describe('status at 40 columns', () => {
  it('keeps every line within the width, words whole', () => {
    const text = fitToWidth(
      `${statusLine(progress, 5_000_000)}\n\n${summaryTable(progress, null, null, false, 40)}`,
      40,
    );
    const lines = text.split('\n');
    expect(lines.filter((line) => line.length > 40)).toEqual([]);
    expect(lines[0]).toBe('spring-launch: 5/24 done, spent $1.23 in');
    expect(lines[1]).toBe('  this run ($5.00 in all runs) + $0.45');
    // Nothing is lost: the same words, in the same order.
    expect(text.replace(/\s+/g, ' ')).toBe(
      `${statusLine(progress, 5_000_000)}\n\n${summaryTable(progress, null, null, false, 40)}`.replace(
        /\s+/g,
        ' ',
      ),
    );
  });

  it('the width is the terminal’s, at most 80; a pipe gets 80', () => {
    expect(widthOf({ isTTY: true, columns: 41 }, 80)).toBe(40);
    expect(widthOf({ isTTY: true, columns: 200 }, 80)).toBe(80);
    expect(widthOf({ isTTY: false }, 80)).toBe(80);
  });
});

/**
 * Issue 20, "every number true": what `run`'s frame, `status`'s text and `status --json` show of
 * one campaign at one moment agree with each other and with their labels, while it runs, waits
 * for a reviewer, is paused (no worker), stops or has finished. Tables of progress, no server.
 */
import { describe, expect, it } from 'vitest';
import { renderFrame } from '../../cli/live-frame.ts';
import { outcomeLine, statusLine, summaryTable } from '../../cli/progress-view.ts';
import { derivedAwaitingLine } from '../../cli/review-wait.ts';
import { shownProgress } from '../../cli/shown-progress.ts';
import type { CampaignProgress, StepProgress } from '../../contract/campaign.ts';
import { workerServes } from '../../control/worker-presence.ts';

function step(id: string, counts: Partial<StepProgress> = {}): StepProgress {
  const zero = { running: 0, waiting: 0, succeeded: 0, cached: 0, failed: 0, skipped: 0, canceled: 0 };
  return { id, model: 'I4', planned: 6, created: 0, regenerated: 0, ...zero, ...counts };
}

function progress(steps: StepProgress[], more: Partial<CampaignProgress> = {}): CampaignProgress {
  return {
    campaign: 'trial',
    outcome: 'running',
    steps,
    spent: 1_800_000,
    committed: 3_250_000,
    inFlight: 1_950_000,
    budget: 20_000_000,
    recentFailures: [],
    startedAt: 0,
    submitting: true,
    at: 100_000,
    etaMs: 25_986,
    runs: 1,
    ...more,
  };
}

/** Six stills made, all awaiting review; their clips wait on it (a memo counting them nowhere). */
const underReview = progress([
  step('still', { succeeded: 6, awaiting_review: 6, approved: 0, rejected: 0 }),
  step('clip', { model: 'V4' }),
]);
const at = { now: 101_000, paused: false };

/** Stills made and decided (no gate of their own); their square crops wait for a decision. */
const cropsUnderReview = progress([step('still', { succeeded: 6 })], {
  derivedAwaiting: [{ step: 'square', awaiting: 4 }],
});

describe('status shows a campaign as it is', () => {
  it.each([
    ['running, jobs finishing', progress([step('still', { succeeded: 3, running: 3 })]), at, 24_986],
    ['every output awaiting review, nothing running', underReview, at, null],
    ['only files of a reviewed derive step awaiting, nothing running', cropsUnderReview, at, null],
    [
      'paused: no worker polls it',
      progress([step('still', { succeeded: 3, running: 3 })]),
      { ...at, paused: true },
      null,
    ],
    [
      'stopping: submission stopped',
      progress([step('still', { succeeded: 3, running: 3 })], { submitting: false }),
      at,
      null,
    ],
    [
      'finished',
      progress([step('still', { succeeded: 6 })], { outcome: 'completed', etaMs: 5_000 }),
      at,
      null,
    ],
  ] as const)('ETA when %s', (_, p, moment, eta) => {
    expect(shownProgress(p, moment).etaMs).toBe(eta);
  });

  it('files of a reviewed derive step waiting are said to wait, in the frame, the status line and the hint', () => {
    const shown = shownProgress(cropsUnderReview, at);
    expect(renderFrame(shown, { width: 100, etaMs: null, paused: false }).at(-1)).toMatch(
      / · 4 awaiting review$/,
    );
    expect(statusLine(shown)).toMatch(/, 4 awaiting review$/);
    expect(derivedAwaitingLine(shown)).toMatch(
      /^awaiting review: square 4 files; .*approve trial 'square\/\*' \(or reject\) decides them$/,
    );
    expect(derivedAwaitingLine({ ...shown, outcome: 'completed' })).toBeNull();
  });

  it('a finished campaign is not submitting, even from a memo or result that said so', () => {
    const done = progress([step('still', { succeeded: 6 })], { outcome: 'completed' });
    expect(shownProgress(done, at).submitting).toBe(false);
    expect(shownProgress(progress([step('still')]), at).submitting).toBe(true);
  });

  it('jobs waiting on their parents’ review are waiting, alike in the frame, the table and the JSON', () => {
    const shown = shownProgress(underReview, at);
    expect(shown.steps[1]).toMatchObject({ running: 0, waiting: 6 });
    const [, clip] = renderFrame(shown, { width: 100, etaMs: null, paused: false });
    expect(clip).toMatch(/ 0\/6 running 0 {2}waiting 6 {2}failed 0$/);
    const table = summaryTable(shown);
    expect(table).not.toContain('not run');
    const lines = table.split('\n');
    const header = lines.findIndex((line) => /\bwaiting\b/.test(line));
    const column = lines[header]!.indexOf('waiting');
    expect(lines[header + 2]!.slice(column).trim().split(/\s+/)[0]).toBe('6');
  });

  it('jobs a stopped campaign will not run are "not run", not waiting', () => {
    const stopped = progress([step('still', { succeeded: 2, running: 1, waiting: 3 })], {
      submitting: false,
    });
    const shown = shownProgress(stopped, at);
    expect(shown.steps[0]).toMatchObject({ waiting: 0 });
    const [header, row] = summaryTable(shown).split('\n');
    expect(header).toMatch(/\brunning\s+not run$/);
    expect(row).toMatch(/\b1\s+3$/);
  });

  it('the headline counts what the bars count: jobs done (a skipped clip is not done)', () => {
    const p = shownProgress(
      progress([
        step('still', { succeeded: 6 }),
        step('clip', { model: 'V4', succeeded: 0, skipped: 1, running: 5 }),
      ]),
      at,
    );
    const frame = renderFrame(p, { width: 100, etaMs: null, paused: false });
    expect(frame[0]).toMatch(/ 6\/6 /);
    expect(frame[1]).toMatch(/ 0\/6 /);
    expect(frame.at(-1)).toContain(' 6/12 done ');
    expect(statusLine(p)).toContain(': 6/12 done,');
  });

  it('one figure, one label: the frame and status say the same money the same way', () => {
    const p = shownProgress(progress([step('clip', { model: 'V4', running: 5, succeeded: 1 })]), at);
    const footer = renderFrame(p, { width: 100, etaMs: null, paused: false }).at(-1)!;
    expect(footer).toContain('spent $1.80 + $3.25 committed');
    expect(statusLine(p)).toContain('spent $1.80 + $3.25 committed');
    expect(outcomeLine(p, null)).toContain('spent $1.80 + $3.25 committed');
    expect(statusLine(p)).not.toContain('in flight');
  });

  it('a paused campaign says paused, not "Running for", and gives no time left', () => {
    const p = progress([step('clip', { model: 'V4', running: 1, succeeded: 5 })]);
    const shown = shownProgress(p, { ...at, paused: true });
    expect(statusLine(shown)).not.toMatch(/left/);
    const summary = summaryTable(shown, null, null, true);
    expect(summary).toMatch(/^Paused \(no worker\), started \S+ ago; spent \$1\.80 \+ \$3\.25 committed/m);
    expect(summary).not.toContain('Running for');
  });
});

describe('whether a worker serves a running campaign', () => {
  const now = 1_000_000;
  it.each([
    ['a worker polled just now, no task waiting', [now - 1_000], null, true],
    ['an idle worker between long polls (renewed about every minute)', [now - 65_000], null, true],
    ['a worker polled lately and the pulse’s task was just scheduled', [now - 5_000], now - 2_000, true],
    // The worker left: its poller stays listed for minutes, but the task of the pulse (every 10 s) waits.
    [
      'a poller listed, but a workflow task has waited 31 s for a worker',
      [now - 40_000],
      now - 31_000,
      false,
    ],
    ['no poller seen for two minutes', [now - 121_000], null, false],
    ['no poller at all', [], null, false],
  ] as const)('%s', (_, pollersSeenAt, taskScheduledAt, serves) => {
    expect(workerServes({ pollersSeenAt, taskScheduledAt, now })).toBe(serves);
  });
});

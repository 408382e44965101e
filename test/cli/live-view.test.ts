/**
 * The live view and summary as text: frames that fit the terminal, redrawn in place with notes
 * above them, the final state left on screen, regenerations in the summary. No Temporal here.
 */
import { describe, expect, it } from 'vitest';
import { etaAt, renderFrame } from '../../cli/live-frame.ts';
import { campaignTaskQueue } from '../../cli/local-worker.ts';
import { ProgressDisplay, statusLine, summaryTable } from '../../cli/progress-view.ts';
import { shownProgress } from '../../cli/shown-progress.ts';
import type { CampaignProgress, StepProgress } from '../../contract/campaign.ts';
import { ENGINE } from '../../contract/engine.ts';

function step(id: string, counts: Partial<StepProgress> = {}): StepProgress {
  const zero = { running: 0, waiting: 0, succeeded: 0, cached: 0, failed: 0, skipped: 0, canceled: 0 };
  return { id, model: 'I4', planned: 100, created: 0, regenerated: 0, ...zero, ...counts };
}

function progress(steps: StepProgress[], more: Partial<CampaignProgress> = {}): CampaignProgress {
  return {
    campaign: 'launch',
    outcome: 'running',
    steps,
    spent: 1_230_000,
    committed: 450_000,
    budget: 40_000_000,
    recentFailures: [],
    startedAt: 0,
    etaMs: null,
    runs: 1,
    ...more,
  };
}

const busy = progress([
  step('hero-shots-in-every-colour', { succeeded: 40, running: 16, waiting: 40, failed: 4 }),
  step('teaser', { planned: 200_000, succeeded: 12_345, running: 200, waiting: 187_455, regenerated: 7 }),
]);

const ESC = String.fromCharCode(27);

/** What a terminal shows after `output`: enough of VT100 for the display's cursor moves. */
function screen(output: string): string[] {
  const rows: string[] = [''];
  let row = 0;
  // The escape as a string, not in the regex literal (where the linter refuses control characters).
  const csi = new RegExp(`(${ESC}\\[\\d*[A-Za-z]|\\n|\\r)`);
  for (const token of output.split(csi)) {
    const move = token.startsWith(ESC) ? /\[(\d*)([A-Za-z])$/.exec(token) : null;
    if (move?.[2] === 'F') row = Math.max(0, row - Number(move[1] || 1));
    else if (move?.[2] === 'J') {
      rows.splice(row + 1);
      rows[row] = '';
    } else if (token === '\n') rows[++row] ??= '';
    else if (token !== '\r' && token !== '') rows[row] += token;
  }
  return rows.filter((line, i) => line !== '' || i < rows.length - 1);
}

/** A stream that keeps what is written to it; `columns` set: a terminal that wide. */
function fakeStream(columns?: number) {
  let output = '';
  const write = (chunk: string) => {
    output += chunk;
    return true;
  };
  const stream = { isTTY: columns !== undefined, columns, write };
  return { stream: stream as unknown as NodeJS.WriteStream, output: () => output };
}

describe('the live frame', () => {
  it.each([40, 80, 132, 200])('keeps every line within %i columns', (width) => {
    for (const line of renderFrame(busy, { width, etaMs: 83_000, paused: false })) {
      expect(line.length, line).toBeLessThan(width);
    }
  });

  it('shows per step done, running, waiting and failed, then money spent and committed and the ETA', () => {
    const [hero, teaser, footer] = renderFrame(busy, { width: 80, etaMs: 83_000, paused: false });
    expect(hero).toMatch(/^hero-shots-in-e… \[.+\]\s+40\/100 run 16 wait 40 fail 4$/);
    expect(teaser).toMatch(/ 12345\/200000 run 200 wait 187455 fail 0 regen 7$/);
    // Done, as the bars count it (40 + 12345): the failed are named on their bar.
    expect(footer).toBe('spent $1.23 + $0.45 committed, budget $40.00 · 12385/200100 done · ETA 1m23s');
  });

  it('uses a wider terminal for a longer bar and words in full', () => {
    const narrow = renderFrame(busy, { width: 80, etaMs: null, paused: false });
    const wide = renderFrame(busy, { width: 160, etaMs: null, paused: false });
    const barOf = (line: string) => /\[(.*)\]/.exec(line)![1]!.length;
    expect(barOf(wide[0]!)).toBeGreaterThan(barOf(narrow[0]!));
    expect(wide[0]).toContain('running 16  waiting 40  failed 4');
    expect(barOf(wide[0]!)).toBe(barOf(wide[1]!)); // bars line up
  });

  it('says when nothing polls the campaign, and when it finished', () => {
    const paused = renderFrame(busy, { width: 80, etaMs: 5_000, paused: true });
    expect(paused.at(-1)).toMatch(/· paused: no worker$/);
    const final = renderFrame(progress([step('a', { succeeded: 100 })], { outcome: 'completed' }), {
      width: 80,
      etaMs: null,
      paused: false,
    });
    expect(final.at(-1)).toMatch(/100\/100 done · finished$/);
  });
});

describe('ProgressDisplay on a terminal', () => {
  it('redraws the frame in place, puts notes above it, and leaves the final state on screen', () => {
    const terminal = fakeStream(80);
    const display = new ProgressDisplay(terminal.stream, () => 0);
    display.update(progress([step('still', { succeeded: 1, running: 2 })]));
    display.update(progress([step('still', { succeeded: 2, running: 1 })]));
    display.note('worker warnings are written to out/.mediaflow/logs/launch.log');
    const final = progress([step('still', { succeeded: 100 })], { outcome: 'completed' });
    display.update(final);
    display.stop();
    expect(screen(terminal.output())).toEqual([
      'worker warnings are written to out/.mediaflow/logs/launch.log',
      ...renderFrame(final, { width: 80, etaMs: 0, paused: false }),
    ]);
  });

  it('writes one line per interval when the output is not a terminal', () => {
    const log = fakeStream();
    let now = 0;
    const display = new ProgressDisplay(log.stream, () => now);
    for (now = 0; now < 12_000; now += 1_000) display.update(busy);
    expect(log.output().split('\n').filter(Boolean)).toHaveLength(3);
    expect(log.output()).not.toContain('\x1b');
  });
});

describe('the summary', () => {
  it('shows regenerations, and leaves out columns that are all zero', () => {
    const table = summaryTable(
      progress([step('still', { planned: 3, succeeded: 3, regenerated: 2 })], { outcome: 'completed' }),
      1_000,
    );
    expect(table.split('\n')[0]).toBe('step   model  planned  succeeded  cached  failed  regenerated');
    expect(table.split('\n')[1]).toMatch(/^still\s+I4\s+3\s+3\s+0\s+0\s+2$/);
  });

  it('fits 80 columns with every column shown, as two tables that each start with the step', () => {
    const counts = { planned: 12, succeeded: 4, failed: 1, skipped: 2, canceled: 1, regenerated: 2 };
    const reviewed = { awaiting_review: 2, approved: 4, rejected: 2 };
    const table = summaryTable(
      progress([step('still-in-every-colour', { ...counts, ...reviewed }), step('clip', counts)]),
      1_000,
    ).split('\n');
    expect(table.filter((line) => line.length > 80)).toEqual([]);
    expect(table.slice(0, 12).map((line) => line.replace(/\s+/g, ' '))).toEqual([
      'step model planned succeeded cached failed skipped',
      'still-in-every-colour I4 12 4 0 1 2',
      'clip I4 12 4 0 1 2',
      '',
      'step canceled not run awaiting review approved rejected',
      'still-in-every-colour 1 4 2 4 2',
      'clip 1 4 0 0 0',
      '',
      'step regenerated',
      'still-in-every-colour 2',
      'clip 2',
      '',
    ]);
  });
});

describe('every figure means its label', () => {
  it('the table counts jobs at the service as running, not as "not run"', () => {
    const table = summaryTable(progress([step('still', { planned: 20, succeeded: 5, running: 10 })]), 1_000);
    expect(table.split('\n')[0]).toMatch(/\brunning\s+not run$/);
    expect(table.split('\n')[1]).toMatch(/\b10\s+5$/);
  });

  it('the table names download faults only when some step has any', () => {
    const faults = {
      planned: 6,
      succeeded: 3,
      failed: 3,
      download_failed: 2,
      download_stalled: 1,
      links_refreshed: 1,
    };
    const table = summaryTable(progress([step('still', faults)], { outcome: 'completed' }), 1_000);
    // Past 80 columns the table goes on below, each part starting with the step.
    for (const label of ['download failed', 'download stalled', 'link refreshed'])
      expect(table).toContain(label);
    expect(table).not.toContain('output expired');
    const calm = summaryTable(
      progress([step('still', { planned: 3, succeeded: 3 })], { outcome: 'completed' }),
      1_000,
    );
    expect(calm).not.toContain('download');
  });

  it('committed money has one label in the frame and in status, whatever is in flight', () => {
    const p = progress([step('still')], { committed: 1_200_000, inFlight: 0 });
    expect(statusLine(p)).toContain('+ $1.20 committed');
    expect(renderFrame(p, { width: 120, etaMs: null, paused: false }).at(-1)).toContain('+ $1.20 committed');
  });

  it('the workflow’s ETA counts down from its snapshot and is gone once run out (a memo left by a detach)', () => {
    const memo = progress([step('still', { succeeded: 40, running: 4 })], { etaMs: 12_000, at: 1_000_000 });
    expect(etaAt(memo, 1_005_000)).toBe(7_000);
    expect(etaAt(memo, 1_000_000 + 120_000)).toBeNull();
  });

  it('the frame shows the workflow’s ETA as status does at the same moment, not one of its own', () => {
    const memo = progress([step('still', { succeeded: 40, running: 4 })], { etaMs: 12_000, at: 1_000_000 });
    const terminal = fakeStream(80);
    new ProgressDisplay(terminal.stream, () => 1_005_000).update(memo);
    expect(terminal.output()).toContain('ETA 7s');
    expect(statusLine(shownProgress(memo, { now: 1_005_000, paused: false }))).toMatch(/about 7s left$/);
    const log = fakeStream();
    new ProgressDisplay(log.stream, () => 1_005_000).update(memo);
    expect(log.output()).toContain('about 7s left');
  });

  it('no ETA once the campaign stopped submitting, nor while nothing polls it', () => {
    const stopping = progress([step('still', { succeeded: 40, running: 4 })], {
      etaMs: 9_000,
      submitting: false,
    });
    expect(shownProgress(stopping, { now: 0, paused: false }).etaMs).toBeNull();
    expect(renderFrame(stopping, { width: 120, etaMs: null, paused: false }).at(-1)).toContain('stopping');
    const log = fakeStream();
    new ProgressDisplay(log.stream, () => 0).update(progress([step('still')], { etaMs: 9_000 }), true);
    expect(log.output()).not.toContain('left');
    expect(log.output()).toContain('(paused: no worker)');
  });
});

describe('the task queue of a campaign run starts', () => {
  it('is its own on the embedded default, the shared one elsewhere, and --task-queue wins: each this engine generation’s', () => {
    expect(campaignTaskQueue(true, 'spring')).toBe(`mediaflow-spring@e${ENGINE}`);
    expect(campaignTaskQueue(false, 'spring')).toBe(`mediaflow@e${ENGINE}`);
    expect(campaignTaskQueue(true, 'spring', 'mine')).toBe(`mine@e${ENGINE}`);
  });
});

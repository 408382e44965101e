/**
 * One frame of `run`'s live view, as plain lines that fit the terminal: a bar per step (done,
 * running, waiting, failed) and a line with money and ETA. Pure, so a test can render any
 * progress at any width; cli/progress-view.ts draws it.
 */
import { formatDollars } from '../api/money.ts';
import type { CampaignProgress, StepProgress } from '../contract/campaign.ts';
import { endedOf as ended } from '../contract/ended-jobs.ts';
import { reviewWait } from './review-wait.ts';
import { doneOf as done, jobsDone } from './step-figures.ts';

const MIN_BAR = 8;
const MAX_BAR = 50;
const MAX_NAME = 16;

export interface FrameFacts {
  /** Terminal columns; every line is kept below this (a line that fills it wraps in some terminals). */
  readonly width: number;
  /** Milliseconds to the end (the workflow's, counted down: etaAt), or null while unknown. */
  readonly etaMs: number | null;
  /** Nothing polls the campaign's task queue: it does not move until a worker runs. */
  readonly paused: boolean;
  /** The service is down and the campaign waits for it (cli/pause-line.ts, pauseState). */
  readonly outage?: string | null;
}

export function renderFrame(p: CampaignProgress, facts: FrameFacts): string[] {
  const room = Math.max(20, facts.width - 1);
  const nameWidth = Math.min(MAX_NAME, Math.max(...p.steps.map((s) => s.id.length), 4));
  const names = p.steps.map((s) => clip(s.id, nameWidth).padEnd(nameWidth));
  const totals = column(
    p.steps.map((s) => `${done(s)}/${s.planned}`),
    'start',
  );
  // One layout for every step, so the bars line up: long words when the terminal has room for
  // them beside a useful bar, short ones otherwise, and no bar at all on a very narrow one.
  for (const [words, least] of [
    [LONG, 16],
    [SHORT, MIN_BAR],
  ] as const) {
    const counts = column(
      p.steps.map((s) => countsOf(s, words)),
      'end',
    );
    const barWidth = Math.min(MAX_BAR, room - nameWidth - totals[0]!.length - counts[0]!.length - 5);
    if (barWidth >= least) {
      const lines = p.steps.map((s, i) => `${names[i]} [${bar(s, barWidth)}] ${totals[i]} ${counts[i]}`);
      return [...lines.map((line) => line.trimEnd()), footer(p, facts, room)];
    }
  }
  const lines = p.steps.map((s, i) => clip(`${names[i]} ${totals[i]} ${countsOf(s, SHORT)}`, room));
  return [...lines, footer(p, facts, room)];
}

const LONG = [
  'running',
  'waiting',
  'failed',
  'skipped',
  'canceled',
  'regenerated',
  'refused',
  'timed out',
] as const;
const SHORT = ['run', 'wait', 'fail', 'skip', 'canc', 'regen', 'refused', 'late'] as const;

/** Running, waiting and failed always; skipped, canceled, regenerated, refused and timed out once there are any. */
function countsOf(s: StepProgress, words: typeof LONG | typeof SHORT): string {
  const always = [s.running, s.waiting, s.failed].map((n, i) => `${words[i]} ${n}`);
  const some = [s.skipped, s.canceled, s.regenerated, s.refused ?? 0, s.timed_out ?? 0].flatMap((n, i) =>
    n > 0 ? [`${words[i + 3]} ${n}`] : [],
  );
  return [...always, ...some].join(words === LONG ? '  ' : ' ');
}

/** Cells padded to the widest, numbers to the right (`start`) or text to the left (`end`). */
function column(cells: string[], pad: 'start' | 'end'): string[] {
  const width = Math.max(...cells.map((cell) => cell.length));
  return cells.map((cell) => (pad === 'start' ? cell.padStart(width) : cell.padEnd(width)));
}

/** Done as full blocks, failed/skipped as crosses, running shaded, the rest (waiting) light. */
function bar(s: StepProgress, width: number): string {
  const cells = (n: number) => (s.planned === 0 ? 0 : Math.round((n / s.planned) * width));
  const full = cells(done(s));
  const lost = Math.max(0, cells(ended(s)) - full);
  const running = Math.max(0, Math.min(width - full - lost, cells(ended(s) + s.running) - full - lost));
  const rest = Math.max(0, width - full - lost - running);
  return '█'.repeat(full) + '×'.repeat(lost) + '▒'.repeat(running) + '░'.repeat(rest);
}

function footer(p: CampaignProgress, facts: FrameFacts, room: number): string {
  const spent = formatDollars(p.spent);
  const committed = formatDollars(p.committed);
  const budget = p.budget === null ? 'no budget' : `budget ${formatDollars(p.budget)}`;
  // What the bars count, summed: failed, skipped and canceled jobs are named on their bars.
  const jobs = jobsDone(p);
  const state =
    p.outcome !== 'running'
      ? 'finished'
      : facts.paused
        ? 'paused: no worker'
        : facts.outage
          ? facts.outage
          : p.submitting === false
            ? 'stopping: in flight landing'
            : reviewWait(p).only
              ? `${reviewWait(p).awaiting} awaiting review`
              : facts.etaMs === null
                ? 'ETA measuring'
                : `ETA ${duration(facts.etaMs)}`;
  const variants = [
    `spent ${spent} + ${committed} committed, ${budget} · ${jobs} · ${state}`,
    `spent ${spent} + ${committed} committed · ${jobs} · ${state}`,
    `${spent} + ${committed} · ${jobs} · ${state}`,
  ];
  return clip(variants.find((line) => line.length <= room) ?? variants.at(-1)!, room);
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * The workflow's ETA as of `now`: counted down from when its snapshot was taken, and none once it
 * ran out (a memo no worker updates, as after a detach, says nothing about the time left).
 */
export function etaAt(p: CampaignProgress, now: number): number | null {
  if (p.etaMs === null || p.at === undefined) return p.etaMs;
  const left = p.etaMs - Math.max(0, now - p.at);
  return left > 0 ? left : null;
}

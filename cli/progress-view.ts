/**
 * How a campaign's progress looks to a person: while it runs, a frame of bars per step redrawn in
 * place (cli/live-frame.ts), or a line every few seconds when the output is not a terminal (CI
 * logs); at the end, a summary table.
 */
import { formatDollars, type Micros } from '../api/money.ts';
import type { CampaignProgress, StepProgress } from '../contract/campaign.ts';
import { endedOf } from '../contract/ended-jobs.ts';
import { duration, renderFrame } from './live-frame.ts';
import { OUTCOMES, stopAdvice } from './outcomes.ts';
import { pauseState } from './pause-line.ts';
import { reviewWait } from './review-wait.ts';
import { shownProgress } from './shown-progress.ts';
import { jobsDone } from './step-figures.ts';

/**
 * `total`: what the campaign has paid across its runs (its records, cli/campaign-total.ts), shown
 * beside this run's spend when known: a re-run that made nothing says so, and says what was paid.
 */
export function moneyLine(p: CampaignProgress, total: Micros | null = null): string {
  const budget = p.budget === null ? 'no budget' : `budget ${formatDollars(p.budget)}`;
  // Both figures only when they differ (a re-run): a first run's spend is the campaign's.
  const spent =
    total === null || total === p.spent
      ? `spent ${formatDollars(p.spent)}`
      : `spent ${formatDollars(p.spent)} in this run (${formatDollars(total)} in all runs)`;
  // Nothing is committed once the campaign has ended: the summary line stays within 80 columns.
  if (p.outcome !== 'running') return `${spent}, ${budget}`;
  // The frame's figure under the frame's label (docs/cli.md, "Money"): the price of the jobs
  // started and not ended, held against the budget. "In flight" once named a narrower figure here
  // (created at the service), which left out heirs the service had already made.
  return `${spent} + ${formatDollars(p.committed)} committed, ${budget}`;
}

export function statusLine(p: CampaignProgress, total: Micros | null = null): string {
  const { awaiting, only } = reviewWait(p);
  const review = awaiting > 0 ? `, ${awaiting} awaiting review` : '';
  const eta = p.etaMs === null || only ? '' : `, about ${duration(p.etaMs)} left`;
  return `${p.campaign}: ${jobsDone(p)}, ${moneyLine(p, total)}${review}${eta}`;
}

const ERASE_DOWN = '\x1b[J';
/** Cursor up `n` lines, to their first column. */
const up = (n: number) => (n > 0 ? `\x1b[${n}F` : '\r');

/**
 * The live view. On a terminal the frame is redrawn where it stands, and anything else this
 * process has to say (note()) goes above it, so no line ever lands between two bars. The last
 * frame drawn stays on screen after stop(): give update() the final progress first.
 */
export class ProgressDisplay {
  private frame: string[] = [];
  private lastLine = Number.NEGATIVE_INFINITY;

  private readonly stream: NodeJS.WriteStream;
  private readonly clock: () => number;

  constructor(stream: NodeJS.WriteStream = process.stderr, clock: () => number = Date.now) {
    this.stream = stream;
    this.clock = clock;
  }

  private get live(): boolean {
    return this.stream.isTTY === true;
  }

  /** Columns of the terminal this frame is drawn on; stdout's when stderr does not say. */
  private get width(): number {
    return this.stream.columns || process.stdout.columns || 80;
  }

  update(given: CampaignProgress, paused = false): void {
    const now = this.clock();
    // What status shows of the same memo (its waiting jobs, whether it still submits, its ETA).
    const p = shownProgress(given, { now, paused });
    const { etaMs } = p;
    if (!this.live) {
      if (now - this.lastLine >= 5_000) {
        const line = statusLine(p);
        const outage = pauseState(p, now);
        const why = paused ? ' (paused: no worker)' : outage ? ` (${outage})` : '';
        this.stream.write(`${line}${why}\n`);
        this.lastLine = now;
      }
      return;
    }
    const previous = this.frame;
    this.frame = renderFrame(p, { width: this.width, etaMs, paused, outage: pauseState(p, now) });
    this.stream.write(this.erase(previous) + this.frame.map((line) => `${line}\n`).join(''));
  }

  /** A line of its own above the frame (e.g. where warnings are logged). */
  note(line: string): void {
    if (!this.live) {
      this.stream.write(`${line}\n`);
      return;
    }
    this.stream.write(`${this.erase(this.frame)}${line}\n${this.frame.map((l) => `${l}\n`).join('')}`);
  }

  /** Leaves the last frame on screen; later output goes below it. */
  stop(): void {
    this.frame = [];
  }

  /** Moves back to the first line of `frame` and clears from there down. */
  private erase(frame: readonly string[]): string {
    if (frame.length === 0) return '';
    // A terminal made narrower since has wrapped the old lines: count the rows they now take.
    const rows = frame.reduce((n, line) => n + Math.max(1, Math.ceil(line.length / this.width)), 0);
    return `${up(rows)}${ERASE_DOWN}`;
  }
}

/**
 * The columns of the summary: the first six always, the rest only when some step has any, so
 * the table of a campaign that went well fits 80 columns even with long step names.
 */
const COLUMNS: readonly [string, (s: StepProgress) => string | number, boolean][] = [
  ['step', (s) => s.id, true],
  ['model', (s) => s.model, true],
  ['planned', (s) => s.planned, true],
  ['succeeded', (s) => s.succeeded, true],
  ['cached', (s) => s.cached, true],
  ['failed', (s) => s.failed, true],
  ['skipped', (s) => s.skipped, false],
  // The service's content policy refused them (on_refusal had nothing more to try), or they ran
  // past their step's timeout: named, not lumped with failures, since the fix differs.
  ['refused', (s) => s.refused ?? 0, false],
  ['timed out', (s) => s.timed_out ?? 0, false],
  ['canceled', (s) => s.canceled, false],
  // Jobs at the service now are not "not run": a running campaign's table says so, and jobs it
  // can still run are waiting (those behind a parent's review too); "not run" are the rest, which
  // this run will not make (it finished or stopped submitting).
  ['running', (s) => s.running, false],
  ['waiting', (s) => s.waiting, false],
  ['not run', (s) => Math.max(0, s.planned - endedOf(s) - s.running - s.waiting), false],
  // Reviewed steps (docs/review.md): outputs waiting for a decision, and the decisions so far.
  ['awaiting review', (s) => s.awaiting_review ?? 0, false],
  ['approved', (s) => s.approved ?? 0, false],
  ['rejected', (s) => s.rejected ?? 0, false],
  // Jobs made again after their prediction failed or their file was lost: paid more than once.
  ['regenerated', (s) => s.regenerated, false],
  // Download faults by name (docs/engine.md, "Downloads"): a short or stalled body after every
  // bounded fetch (failed, paid: a later run fetches it again for free), an output the service no
  // longer had (made again), a link that expired and was fetched fresh.
  ['download failed', (s) => s.download_failed ?? 0, false],
  ['download stalled', (s) => s.download_stalled ?? 0, false],
  ['output expired', (s) => s.outputs_expired ?? 0, false],
  ['link refreshed', (s) => s.links_refreshed ?? 0, false],
];

/**
 * `endedAt`: when the campaign's workflow closed; omitted or null while it runs. `paused`: no
 * worker serves it (control/worker-presence.ts).
 */
export function summaryTable(
  p: CampaignProgress,
  endedAt: number | null = null,
  total: Micros | null = null,
  paused = false,
  width = TABLE_WIDTH,
): string {
  const shown = COLUMNS.filter(([, value, always]) => always || p.steps.some((s) => value(s) !== 0));
  const cells = [
    shown.map(([name]) => name),
    ...p.steps.map((s) => shown.map(([, value]) => String(value(s)))),
  ];
  const widths = shown.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const lines = columnGroups(widths, width).flatMap((group, index) => [
    ...(index > 0 ? [''] : []),
    ...cells.map((row) =>
      group
        .map((column) => row[column]!.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    ),
  ]);
  const failures = p.recentFailures.map((f) => `  ${f.step}/${f.job}: ${f.message}`);
  return [
    ...lines,
    '',
    outcomeLine(p, endedAt, total, paused),
    ...[stopAdvice(p.outcome, p.stopMessage)].filter((line) => line !== null),
    ...(failures.length > 0 ? ['recent failures:', ...failures] : []),
  ].join('\n');
}

/** The width the summary keeps to, as the live frame keeps to the terminal's. */
export const TABLE_WIDTH = 80;

/**
 * Columns split into tables of at most `limit` characters, each starting with the first column
 * (the step), so a reviewed campaign with failures reads as two short tables, not one that wraps.
 */
export function columnGroups(widths: readonly number[], limit: number): number[][] {
  const groups: number[][] = [[0]];
  let used = widths[0] ?? 0;
  for (let column = 1; column < widths.length; column++) {
    const width = widths[column]!;
    let group = groups.at(-1)!;
    if (group.length > 1 && used + 2 + width > limit) {
      group = [0];
      groups.push(group);
      used = widths[0]!;
    }
    group.push(column);
    used += 2 + width;
  }
  return groups;
}

/** "Completed in 12s; spent $0.09, budget $1.00"; "Running for 5s; spent $0.03 + $0.06 committed, …". */
export function outcomeLine(
  p: CampaignProgress,
  endedAt: number | null = null,
  total: Micros | null = null,
  paused = false,
): string {
  const took = duration((endedAt ?? Date.now()) - p.startedAt);
  // Paused, it is not "running for" anything: nothing has moved since its worker left.
  if (p.outcome === 'running' && paused) {
    return `Paused (no worker), started ${took} ago; ${moneyLine(p, total)}`;
  }
  return `${outcomeText(p)} ${p.outcome === 'running' ? 'for' : 'in'} ${took}; ${moneyLine(p, total)}`;
}

function outcomeText(p: CampaignProgress): string {
  return OUTCOMES[p.outcome].says;
}

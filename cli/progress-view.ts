/**
 * How a campaign's progress looks to a person: live bars per step while it runs (a line every few
 * seconds when the output is not a terminal, e.g. CI logs), and a summary table at the end.
 */
import cliProgress from 'cli-progress';
import { formatDollars, formatUsd } from '../api/money.ts';
import type { CampaignProgress, StepProgress } from '../contract/campaign.ts';
import { OUTCOMES, stopAdvice } from './outcomes.ts';

const finished = (s: StepProgress) => s.succeeded + s.cached + s.failed + s.skipped;

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function moneyLine(p: CampaignProgress): string {
  const budget = p.budget === null ? 'no budget' : `budget ${formatDollars(p.budget)}`;
  return `spent ${formatDollars(p.spent)} + ${formatDollars(p.committed)} in flight, ${budget}`;
}

export function statusLine(p: CampaignProgress): string {
  const done = p.steps.reduce((n, s) => n + finished(s), 0);
  const planned = p.steps.reduce((n, s) => n + s.planned, 0);
  const eta = p.etaMs === null ? '' : `, about ${duration(p.etaMs)} left`;
  return `${p.campaign}: ${done}/${planned} jobs, ${moneyLine(p)}${eta}`;
}

export class ProgressDisplay {
  private readonly bars: cliProgress.MultiBar | null;
  private readonly stepBars = new Map<string, cliProgress.SingleBar>();
  private lastLine = 0;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.bars = stream.isTTY
      ? new cliProgress.MultiBar(
          {
            stream,
            format:
              ' {step} [{bar}] {value}/{total} | ok {succeeded} cached {cached} failed {failed} skipped {skipped} | running {running}',
            hideCursor: true,
            clearOnComplete: false,
            barsize: 24,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  }

  update(p: CampaignProgress): void {
    if (!this.bars) {
      if (Date.now() - this.lastLine >= 5_000) {
        this.stream.write(`${statusLine(p)}\n`);
        this.lastLine = Date.now();
      }
      return;
    }
    const width = Math.max(...p.steps.map((s) => s.id.length));
    for (const step of p.steps) {
      const payload = { ...step, step: step.id.padEnd(width) };
      const bar = this.stepBars.get(step.id);
      if (bar) bar.update(finished(step), payload);
      else this.stepBars.set(step.id, this.bars.create(step.planned, finished(step), payload));
    }
  }

  stop(): void {
    this.bars?.stop();
  }
}

/** `endedAt`: when the campaign's workflow closed; omitted or null while it runs. */
export function summaryTable(p: CampaignProgress, endedAt: number | null = null): string {
  const header = [
    'step',
    'model',
    'planned',
    'succeeded',
    'cached',
    'failed',
    'skipped',
    'canceled',
    'not run',
  ];
  const rows = p.steps.map((s) => [
    s.id,
    s.model,
    s.planned,
    s.succeeded,
    s.cached,
    s.failed,
    s.skipped,
    s.canceled,
    s.planned - finished(s) - s.canceled,
  ]);
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const lines = cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
  const failures = p.recentFailures.map((f) => `  ${f.step}/${f.job}: ${f.message}`);
  return [
    ...lines,
    '',
    outcomeLine(p, endedAt),
    ...[stopAdvice(p.outcome, p.stopMessage)].filter((line) => line !== null),
    ...(failures.length > 0 ? ['recent failures:', ...failures] : []),
  ].join('\n');
}

/** "Completed in 12s; spent $0.09 + $0.00 in flight, budget $1.00". */
export function outcomeLine(p: CampaignProgress, endedAt: number | null = null): string {
  const took = duration((endedAt ?? Date.now()) - p.startedAt);
  return `${outcomeText(p)} ${p.outcome === 'running' ? 'for' : 'in'} ${took}; ${moneyLine(p)}`;
}

function outcomeText(p: CampaignProgress): string {
  return OUTCOMES[p.outcome].says;
}

/** Exit 0 only when every planned job has its file. */
export function allSucceeded(p: CampaignProgress): boolean {
  return p.outcome === 'completed' && p.steps.every((s) => s.succeeded + s.cached === s.planned);
}

/** JSON replacer: money goes out as decimal strings, so a JSON reader never sees float dollars. */
export function moneyAsDecimal(key: string, value: unknown): unknown {
  return ['spent', 'committed', 'budget'].includes(key) && typeof value === 'number'
    ? formatUsd(value)
    : value;
}

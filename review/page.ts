/**
 * The whole page: the review server's and the report's (read-only, every step). CSS and the
 * client script are inlined, so the report works from file:// with nothing beside it but the
 * outputs it links to.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml } from './escape-html.ts';
import type { CampaignModel, StepView } from './model.ts';
import { renderFailures, renderStep, renderTotals } from './render.ts';
import { renderChannel } from './render-channel.ts';
import { defaultLayout, fitLayout, type Layout } from './sheet.ts';
import type { FileUrl } from './sheet-html.ts';

const asset = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');
const CSS = asset('./theme.css') + asset('./page.css');
/** The client in two files by concern, run in one function scope (they share the page's state). */
const SCRIPT = `(() => {\n${asset('./client.js')}\n${asset('./client-live.js')}})();`;

export interface PageOptions {
  /** review: the live page that decides; report: the static, read-only one. */
  readonly mode: 'review' | 'report';
  /** The user's choice of axes; each step keeps the ones it has (default: its first two). */
  readonly layout: Layout | null;
  readonly fileUrl: FileUrl;
  /** When the page was made, for the report's title line. */
  readonly now: Date;
}

/** The steps a page shows: the reviewed ones on the review page (all if none is), every step in a report. */
export function stepsShown(model: CampaignModel, mode: PageOptions['mode']): readonly StepView[] {
  const reviewed = model.steps.filter((step) => step.reviewed);
  return mode === 'review' && reviewed.length > 0 ? reviewed : model.steps;
}

/** A channel's axes are its parent step's: it gets the layout its parent gets. */
export function layoutOf(step: Pick<StepView, 'axes'>, layout: Layout | null): Layout {
  return layout === null ? defaultLayout(step) : fitLayout(step, layout);
}

/**
 * The steps' sheets, the channels' (every derive step's, on both pages: what the campaign
 * delivers) and the failures: the page's main part, fetched again for other axes.
 */
export function renderSheets(model: CampaignModel, options: PageOptions): string {
  const sheets = stepsShown(model, options.mode)
    .map((step) => renderStep(step, layoutOf(step, options.layout), options.fileUrl))
    .join('');
  const channels = model.channels
    .map((channel) => renderChannel(channel, layoutOf(channel, options.layout), options.fileUrl))
    .join('');
  return `${sheets}${channels}${renderFailures(model)}`;
}

function axisSelect(id: string, label: string, axes: readonly string[], chosen: readonly string[]): string {
  const options = ['', ...axes]
    .map(
      (axis) =>
        `<option value="${escapeHtml(axis)}"${chosen[0] === axis || (axis === '' && chosen.length === 0) ? ' selected' : ''}>${
          axis === '' ? '(none)' : escapeHtml(axis)
        }</option>`,
    )
    .join('');
  return `<label>${label} <select id="${id}">${options}</select></label>`;
}

const FILTERS = [
  ['all', 'All'],
  ['undecided', 'Undecided'],
  ['approved', 'Approved'],
  ['rejected', 'Rejected'],
  ['failed', 'Failed'],
] as const;

function toolbar(model: CampaignModel, options: PageOptions): string {
  const steps = stepsShown(model, options.mode);
  const axes = [...new Set(steps.flatMap((step) => step.axes))];
  const first = steps[0];
  const layout = first ? layoutOf(first, options.layout) : { rows: [], cols: [] };
  const filters = FILTERS.map(
    ([id, label]) =>
      `<button type="button" class="filter" data-filter="${id}" aria-pressed="${id === 'all'}">${label}</button>`,
  ).join('');
  return [
    `<div class="filters" role="group" aria-label="show">${filters}</div>`,
    // The report is a file: it has no server to lay its sheets out again.
    options.mode === 'review'
      ? `<div class="axes">${axisSelect('rows', 'Rows', axes, layout.rows)}${axisSelect('cols', 'Columns', axes, layout.cols)}</div>`
      : '',
  ].join('');
}

const REVIEW_KEYS =
  '<kbd>←↑↓→</kbd> move · <kbd>shift</kbd>+move select · <kbd>a</kbd> approve · <kbd>r</kbd> reject · <kbd>g</kbd> regenerate · <kbd>z</kbd> undo';
const PROMPT_KEY = ' · <kbd>p</kbd> new prompt';

/** Where a step lets a reviewer change the prompt, `p` asks for one and regenerates with it. */
const PROMPT_DIALOG = `<dialog id="prompt-dialog" aria-labelledby="prompt-title"><form method="dialog">
<h2 id="prompt-title">Regenerate with a new prompt</h2><p class="for"></p>
<textarea name="prompt" rows="5" required aria-label="new prompt"></textarea>
<div class="actions"><button value="cancel" formnovalidate>Cancel</button><button value="ok" class="primary">Regenerate</button></div>
</form></dialog>`;

function keysOf(model: CampaignModel, mode: PageOptions['mode']): string {
  if (mode === 'report') return REPORT_KEYS;
  return stepsShown(model, mode).some((step) => step.editPrompt) ? REVIEW_KEYS + PROMPT_KEY : REVIEW_KEYS;
}
const REPORT_KEYS = '<kbd>←↑↓→</kbd> move · read-only report';

export function renderPage(model: CampaignModel, options: PageOptions): string {
  const title = `${model.campaign} · ${options.mode === 'review' ? 'review' : 'report'}`;
  const made =
    options.mode === 'report'
      ? `<p class="made">report, made ${escapeHtml(options.now.toISOString().slice(0, 16).replace('T', ' '))} UTC</p>`
      : '<p class="made">review · live</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${CSS}</style></head>
<body class="f-all" data-mode="${options.mode}">
<header class="top">
<div class="title"><h1>${escapeHtml(model.campaign)}</h1>${made}</div>
<div id="totals" class="totals" aria-live="polite">${renderTotals(model)}</div>
<nav class="toolbar" aria-label="view">${toolbar(model, options)}</nav>
</header>
<div class="body">
<main id="sheets">${renderSheets(model, options)}</main>
<aside id="detail" aria-live="polite" aria-label="selected job"><p class="hint">Move to a picture to see its prompt, price and videos.</p></aside>
</div>
<footer class="bar"><div id="status" role="status"></div><div id="selection" aria-live="polite"></div><div class="keys">${keysOf(model, options.mode)}</div></footer>
${options.mode === 'review' ? PROMPT_DIALOG : ''}
<script>${SCRIPT}</script>
</body></html>`;
}

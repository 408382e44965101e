/**
 * The page's HTML, rendered on the server: one renderer for the live review page and the static
 * report, so the two never drift. Every value from a spec or a manifest is escaped here.
 */
import { formatDollars } from '../api/money.ts';
import { costLine } from './cost-line.ts';
import { escapeHtml } from './escape-html.ts';
import type { CampaignModel, Item, ItemState, Output, StepView } from './model.ts';
import { type Layout, sheetOf } from './sheet.ts';
import { cardHtml, type FileUrl, fileNameHtml, mediaHtml, sectionHtml } from './sheet-html.ts';

const LABELS: Record<ItemState, string> = {
  generating: 'generating',
  awaiting: 'awaiting review',
  approved: 'approved',
  rejected: 'rejected',
  regenerating: 'regenerating',
  failed: 'failed',
  done: 'done',
  skipped: 'skipped',
  waiting: 'waiting',
  unrun: 'not run',
  refused: 'refused',
};

function media(output: Output, fileUrl: FileUrl, big: boolean): string {
  return mediaHtml({ ...output, placeholder: LABELS[output.state] }, fileUrl, big);
}

function details(item: Item, fileUrl: FileUrl): string {
  const axes = Object.entries(item.axes)
    .map(([axis, value]) => `<dt>${escapeHtml(axis)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const decision = item.decision
    ? `<p class="decision">${escapeHtml(item.decision.action)} (take ${item.decision.take})${
        item.decision.by ? ` by ${escapeHtml(item.decision.by)}` : ''
      }, ${escapeHtml(item.decision.at)}${item.decision.note ? `: ${escapeHtml(item.decision.note)}` : ''}</p>`
    : '';
  const kids = item.descendants
    .map(
      (kid) =>
        `<figure class="kid s-${kid.state}">${media(kid, fileUrl, true)}<figcaption>${fileNameHtml(kid.fileName)} · ${
          LABELS[kid.state]
        }</figcaption></figure>`,
    )
    .join('');
  return [
    `<h3>${fileNameHtml(item.fileName)}</h3>`,
    `<p class="job">job ${escapeHtml(item.name)}</p>`,
    `<p class="state">${LABELS[item.state]}${takeLabel(item)} · ${escapeHtml(costLine(item))}</p>`,
    item.failure ? `<p class="failure">${escapeHtml(item.failure)}</p>` : '',
    item.prompt === null ? '' : `<p class="prompt">${escapeHtml(item.prompt)}</p>`,
    axes ? `<dl>${axes}</dl>` : '',
    decision,
    kids ? `<div class="kids">${kids}</div>` : '',
  ].join('');
}

/** The first video made from an item, once it has landed. */
function landedVideo(item: Item): Output | undefined {
  return item.descendants.find((kid) => kid.kind === 'video' && kid.file !== null);
}

/**
 * The still, or once its video has landed the video with the still as its poster: the sheet
 * keeps showing the picture that was chosen, and hovering it plays what it became.
 */
function thumb(item: Item, fileUrl: FileUrl): string {
  const video = landedVideo(item);
  if (!video?.file || !item.file) return media(item, fileUrl, false);
  const poster = escapeHtml(fileUrl(item.file));
  // data-still: the detail pane shows this card's picture (its poster), not the video.
  return `<video src="${escapeHtml(fileUrl(video.file))}" poster="${poster}" data-still muted loop playsinline preload="none"></video>`;
}

/**
 * " · take 1" from the first retake on: the regeneration counter, as the file name (`.take1`), the
 * decision line, the manifest's `take` and the CLI say it (docs/review.md, "Takes").
 */
function takeLabel(item: Item): string {
  return item.take > 0 ? ` · take ${item.take}` : '';
}

function badge(item: Item): string {
  const videos = item.descendants.filter((kid) => kid.kind === 'video' && kid.file !== null).length;
  return `${LABELS[item.state]}${takeLabel(item)}${videos > 0 ? ` · ▶ ${videos}` : ''}`;
}

/** One item of a sheet; the page swaps it whole when its version changes. */
export function renderItem(item: Item, fileUrl: FileUrl): string {
  const dots = item.descendants
    .map(
      (kid) =>
        `<i class="dot s-${kid.state}" title="${escapeHtml(`${kid.fileName}: ${LABELS[kid.state]}`)}"></i>`,
    )
    .join('');
  return cardHtml({
    key: item.key,
    state: item.state,
    version: item.version,
    label: `${item.fileName}: ${LABELS[item.state]}, ${costLine(item)}`,
    // The job's name, for what the workflow answers about it (a refused decision names it).
    attributes: ` data-name="${escapeHtml(item.name)}"`,
    // The descendants' dots sit on the picture: the caption's width is the file name's.
    thumb: `${thumb(item, fileUrl)}${dots ? `<span class="dots">${dots}</span>` : ''}`,
    badge: badge(item),
    caption: `<span class="name">${fileNameHtml(item.fileName)}</span>`,
    info: details(item, fileUrl),
  });
}

export function renderStepCounts(step: StepView): string {
  const shown = (Object.entries(step.counts) as [ItemState, number][]).filter(([, n]) => n > 0);
  return shown.map(([state, n]) => `<span class="count s-${state}">${n} ${LABELS[state]}</span>`).join(' ');
}

export function renderStep(step: StepView, layout: Layout, fileUrl: FileUrl): string {
  return sectionHtml({
    id: step.id,
    attributes: ` data-edit-prompt="${step.editPrompt}"`,
    subtitle: `${escapeHtml(step.model)}${step.reviewed ? ' · reviewed' : ''}`,
    lines: [
      `<p class="stepcost">planned ${formatDollars(step.plannedUsd)} · spent ${formatDollars(step.spentUsd)}</p>`,
      `<p class="counts">${renderStepCounts(step)}</p>${renderRefusalRates(step)}`,
    ].join(''),
    sheet: sheetOf(step, layout),
    render: (item) => renderItem(item, fileUrl),
  });
}

/**
 * "refused by product: watch 3 of 4 jobs (75 %, 5 refusals) · sneaker 0 of 4": which values of an
 * axis the service keeps refusing, so the prompt of that value is what a person fixes.
 */
export function renderRefusalRates(step: StepView): string {
  if (step.refusalRates.length === 0) return '';
  const axes = [...new Set(step.refusalRates.map((rate) => rate.axis))];
  const lines = axes.map((axis) => {
    const values = step.refusalRates
      .filter((rate) => rate.axis === axis)
      .map(
        (rate) =>
          `<span class="rate${rate.refusedJobs > 0 ? ' s-refused' : ''}">${escapeHtml(rate.value)} ${rate.refusedJobs} of ${rate.jobs}` +
          (rate.refusals > 0
            ? ` (${Math.round((100 * rate.refusedJobs) / rate.jobs)} %, ${rate.refusals} ${rate.refusals === 1 ? 'refusal' : 'refusals'})`
            : '') +
          '</span>',
      )
      .join(' · ');
    return `<li>refused by <strong>${escapeHtml(axis)}</strong>: ${values}</li>`;
  });
  return `<ul class="refusal-rates" aria-label="refusal rate per matrix value">${lines.join('')}</ul>`;
}

/** The running totals and the campaign's outcome: the live page replaces this block as it changes. */
export function renderTotals(model: CampaignModel): string {
  const { spent, committedByApprovals, worstCaseLeft, budget } = model.totals;
  const stat = (label: string, value: string, cls: string, note = '') =>
    `<div class="stat ${cls}"><span>${label}</span><strong>${value}</strong>${note}</div>`;
  const why = spentLines(model);
  const note = why.length > 0 ? `<small>${why.map(escapeHtml).join('<br>')}</small>` : '';
  return [
    stat('spent in all runs', formatDollars(spent), 'spent', note),
    stat('committed by approvals', formatDollars(committedByApprovals), 'committed'),
    stat('worst case left', formatDollars(worstCaseLeft), 'worst'),
    stat('budget', budget === null ? 'none' : formatDollars(budget), 'budget'),
    `<div class="stat outcome o-${model.outcome}"><span>campaign</span><strong>${escapeHtml(model.outcome)}</strong></div>`,
  ].join('');
}

export function renderFailures(model: CampaignModel): string {
  if (model.failures.length === 0) return '';
  const rows = model.failures
    .map(
      (f) =>
        `<li><strong>${escapeHtml(f.job)}</strong> (${escapeHtml(f.step)}): ${escapeHtml(f.message)}</li>`,
    )
    .join('');
  return `<section class="failures" aria-label="failures"><h2>Failures</h2><ul>${rows}</ul></section>`;
}

/**
 * Why the headline is more than the steps' spend, when it is: "$1.66 paid for jobs an edit removed
 * (superseded)", and what this run paid that no record holds (a take charged but not saved). With
 * them the steps add up to the headline.
 */
export function spentLines(model: CampaignModel): string[] {
  const { spent, superseded } = model.totals;
  const steps = model.steps.reduce((sum, step) => sum + step.spentUsd, 0);
  const unrecorded = spent - steps - superseded;
  return [
    superseded > 0 && `${formatDollars(superseded)} paid for jobs an edit removed (superseded)`,
    unrecorded > 0 && `${formatDollars(unrecorded)} paid for takes no record holds (charged, not saved)`,
  ].filter((line): line is string => typeof line === 'string');
}

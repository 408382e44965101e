/**
 * A derive step's sheet, a "channel": laid out as its parent step's, each card the file made (or
 * to be made) from one output, with its size in pixels and bytes, its format and its state. A made
 * file of a reviewed derive step takes decisions as a job's card does; any other card says
 * `data-readonly` (`reviewed`: its step is reviewed but the file is not made; `derived`: decided
 * through its parent), and the page's keys leave it alone, saying why.
 */
import { type ChannelView, type DerivativeCard, type DerivativeState, fileStands } from './channels.ts';
import { escapeHtml } from './escape-html.ts';
import { type Layout, sheetOf } from './sheet.ts';
import { cardHtml, type FileUrl, fileNameHtml, mediaHtml, sectionHtml } from './sheet-html.ts';

const LABELS: Record<DerivativeState, string> = {
  made: 'made',
  failed: 'failed',
  unmade: 'not made yet',
  awaiting: 'awaiting review',
  approved: 'approved',
  rejected: 'rejected',
};

/** A reviewed step's made file is decided here; a file of any other, or not made, is not. */
const DECIDABLE: ReadonlySet<DerivativeState> = new Set(['awaiting', 'approved', 'rejected']);

/** kB of 1,000 bytes, as `max_bytes` counts them, rounded down: a file under a limit never reads over it. */
export function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  const [unit, size] = bytes < 1_000_000 ? ['kB', 1_000] : ['MB', 1_000_000];
  return `${(Math.floor((bytes / size) * 10) / 10).toFixed(1)} ${unit}`;
}

/** `1080×1080 · 212.3 kB · jpeg`, `· 4.0 s` for a clip: what was made, each fact whole on a line. */
function factsHtml(card: DerivativeCard): string {
  const facts = factsOf(card).split(' · ');
  // The separator leads a fact: a line of a narrow card never ends in a lone `·`.
  return facts
    .map((fact, i) => `<span class="fact">${i > 0 ? '· ' : ''}${escapeHtml(fact)}</span>`)
    .join(' ');
}

function factsOf(card: DerivativeCard): string {
  const made =
    card.width !== null && card.height !== null && card.bytes !== null
      ? [`${card.width}×${card.height}`, formatBytes(card.bytes)]
      : [];
  const duration = card.durationS === null ? [] : [`${card.durationS.toFixed(1)} s`];
  return [...made, ...(card.format === null ? [] : [card.format]), ...duration].join(' · ');
}

function details(card: DerivativeCard): string {
  const facts: [string, string | null][] = [
    ['size', card.width === null ? null : `${card.width}×${card.height} px`],
    ['bytes', card.bytes === null ? null : card.bytes.toLocaleString('en')],
    ['format', card.format],
    ['duration', card.durationS === null ? null : `${card.durationS} s`],
    ...Object.entries(card.axes),
  ];
  const dl = facts
    .filter((fact): fact is [string, string] => fact[1] !== null)
    .map(([term, value]) => `<dt>${term}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const operations = card.operations.map((op) => `<li>${escapeHtml(op)}</li>`).join('');
  return [
    `<h3>${fileNameHtml(card.file)}</h3>`,
    `<p class="state">${LABELS[card.state]} · ${escapeHtml(card.step)}, derived on this machine, no cost</p>`,
    card.reason === null ? '' : `<p class="failure">${escapeHtml(card.reason)}</p>`,
    card.parentFile === null
      ? '<p class="from">from its parent’s output, once saved</p>'
      : `<p class="from">from ${fileNameHtml(card.parentFile)}</p>`,
    dl ? `<dl>${dl}</dl>` : '',
    operations ? `<ol class="operations" aria-label="operations">${operations}</ol>` : '',
  ].join('');
}

/** One card of a channel; the page swaps it whole when its version changes. */
export function renderDerivative(card: DerivativeCard, fileUrl: FileUrl): string {
  const file = fileStands(card) ? card.file : null;
  const facts = card.state === 'failed' ? (card.reason ?? '') : factsOf(card);
  return cardHtml({
    key: card.key,
    state: card.state,
    version: card.version,
    label: `${card.file}: ${LABELS[card.state]}${facts ? `, ${facts}` : ''}`,
    attributes: ` data-name="${escapeHtml(card.file)}"${readOnly(card)}${shapeOf(card)}`,
    thumb: mediaHtml(
      { file, kind: card.kind, poster: null, placeholder: LABELS[card.state] },
      fileUrl,
      false,
    ),
    badge: LABELS[card.state],
    caption: `<span class="name">${fileNameHtml(card.file)}</span><span class="facts">${
      card.state === 'failed' ? escapeHtml(facts) : factsHtml(card)
    }</span>`,
    info: details(card),
  });
}

function readOnly(card: DerivativeCard): string {
  if (DECIDABLE.has(card.state)) return '';
  return ` data-readonly="${card.reviewed ? 'reviewed' : 'derived'}"`;
}

export function renderChannelCounts(channel: ChannelView): string {
  const shown = (Object.entries(channel.counts) as [DerivativeState, number][]).filter(([, n]) => n > 0);
  return shown.map(([state, n]) => `<span class="count s-${state}">${n} ${LABELS[state]}</span>`).join(' ');
}

/**
 * A card takes the shape of its file (page.css): a 9:16 story is a narrow card, never a square
 * one letterboxed or a wide one cropped. `--shape` is width over height, for the card's width.
 */
function shapeOf(card: DerivativeCard | undefined): string {
  if (!card || card.width === null || card.height === null) return '';
  return ` style="--aspect: ${card.width} / ${card.height}; --shape: ${(card.width / card.height).toFixed(4)}"`;
}

export function renderChannel(channel: ChannelView, layout: Layout, fileUrl: FileUrl): string {
  // A card not made yet takes the shape of the step's first file made (its siblings' mostly).
  const aspect = shapeOf(channel.items.find((card) => card.width !== null));
  return sectionHtml({
    id: channel.id,
    attributes: ` data-derived-from="${escapeHtml(channel.from)}"${aspect}`,
    subtitle: `derived from ${escapeHtml(channel.from)} · ${channel.reviewed ? 'reviewed' : 'read-only'}`,
    lines: `<p class="counts">${renderChannelCounts(channel)}</p>`,
    sheet: sheetOf(channel, layout),
    render: (card) => renderDerivative(card, fileUrl),
  });
}

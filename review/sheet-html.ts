/**
 * What every contact sheet is drawn with, a model step's (render.ts) and a channel's
 * (render-channel.ts): the section and its header, the grid of column heads, row heads and cells,
 * a card, its picture or video, and a file name that wraps at its folders rather than losing its
 * start.
 */
import { escapeHtml } from './escape-html.ts';
import type { MediaKind } from './media-kind.ts';
import type { Placed, Sheet } from './sheet.ts';

export type FileUrl = (file: string) => string;

/**
 * A file's name as a card shows it: whole, each folder with its `/` a piece that moves to the next
 * line as one (page.css, `.seg`), so `still/TEE-01/1-1.png` breaks after a folder, not at a hyphen.
 */
export function fileNameHtml(file: string): string {
  const parts = file.split('/');
  return parts
    .map((part, i) => `<span class="seg">${escapeHtml(part)}${i < parts.length - 1 ? '/' : ''}</span>`)
    .join('<wbr>');
}

export interface Shown {
  /** Null until there is a file: the placeholder says why. */
  readonly file: string | null;
  readonly kind: MediaKind | null;
  /** A video's still, shown until it plays. */
  readonly poster: string | null;
  readonly placeholder: string;
}

/** The picture or video of a card (`big`: the detail pane's, with controls, playing). */
export function mediaHtml(shown: Shown, fileUrl: FileUrl, big: boolean): string {
  if (shown.file === null) {
    return `<div class="placeholder" aria-hidden="true"><span>${escapeHtml(shown.placeholder)}</span></div>`;
  }
  const src = escapeHtml(fileUrl(shown.file));
  if (shown.kind === 'video') {
    const play = big ? ' controls autoplay' : '';
    // The still it was made from shows until the video plays (and if it cannot).
    const poster = shown.poster === null ? '' : ` poster="${escapeHtml(fileUrl(shown.poster))}"`;
    return `<video src="${src}"${poster} muted loop playsinline preload="metadata"${play}></video>`;
  }
  return `<img src="${src}" alt="" loading="lazy" decoding="async">`;
}

export interface Card {
  readonly key: string;
  /** The state's class (`s-<state>`) and `data-state`. */
  readonly state: string;
  readonly version: string;
  /** Read by a screen reader for the whole card. */
  readonly label: string;
  /** Attributes of its own (`data-name="…"`), escaped by the caller. */
  readonly attributes: string;
  readonly thumb: string;
  readonly badge: string;
  /** Under the picture: its file name first. */
  readonly caption: string;
  /** What the detail pane shows when the card is focused or hovered. */
  readonly info: string;
}

/** One card of a sheet; the page swaps it whole when its version changes. */
export function cardHtml(card: Card): string {
  return [
    `<figure class="item s-${card.state}" role="option" aria-selected="false" tabindex="-1"`,
    ` data-key="${escapeHtml(card.key)}" data-state="${card.state}" data-version="${escapeHtml(card.version)}"${card.attributes}`,
    ` aria-label="${escapeHtml(card.label)}">`,
    `<div class="thumb">${card.thumb}<span class="badge">${card.badge}</span></div>`,
    `<figcaption>${card.caption}</figcaption>`,
    `<div class="info">${card.info}</div>`,
    '</figure>',
  ].join('');
}

/** The grid of a sheet: column heads, then each row's head and cells. */
function gridHtml<T extends Placed>(id: string, sheet: Sheet<T>, render: (item: T) => string): string {
  const head = sheet.colLabels
    .map((label) => `<div class="colhead" aria-hidden="true">${escapeHtml(label)}</div>`)
    .join('');
  const rows = sheet.rowLabels
    .map((rowLabel, r) => {
      const cells = sheet.colLabels
        .map((colLabel, c) => {
          const group = [rowLabel, colLabel].filter(Boolean).join(', ') || id;
          const items = sheet.cells[r]![c]!.map(render).join('');
          return `<div class="cell" role="group" aria-label="${escapeHtml(group)}">${items}</div>`;
        })
        .join('');
      return `<div class="rowhead" aria-hidden="true">${escapeHtml(rowLabel)}</div>${cells}`;
    })
    .join('');
  return [
    `<div class="sheet" role="listbox" aria-multiselectable="true" aria-label="${escapeHtml(id)} contact sheet"`,
    ` style="--cols:${sheet.colLabels.length}"><div class="corner"></div>${head}${rows}</div>`,
  ].join('');
}

export interface Section<T extends Placed> {
  readonly id: string;
  /** Its own class and attributes beside `step` and `data-step` (escaped by the caller). */
  readonly attributes: string;
  /** After the id in the heading: the model, or where a channel's files come from. */
  readonly subtitle: string;
  /** The header's lines after the heading: cost, counts, refusal rates. */
  readonly lines: string;
  readonly sheet: Sheet<T>;
  readonly render: (item: T) => string;
}

/** A step's section: its heading and lines, then its sheet. */
export function sectionHtml<T extends Placed>(section: Section<T>): string {
  const id = escapeHtml(section.id);
  return [
    `<section class="step" data-step="${id}"${section.attributes} aria-labelledby="step-${id}">`,
    `<header><h2 id="step-${id}">${id} <small>${section.subtitle}</small></h2>${section.lines}</header>`,
    gridHtml(section.id, section.sheet, section.render),
    '</section>',
  ].join('');
}

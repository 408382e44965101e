/**
 * The inbox page (docs/review.md, "The inbox"): the campaigns awaiting review, longest wait first,
 * each a link to its sheet on the same server. One column of cards that wraps on a phone as on a
 * desktop; the palette is the sheet's (theme.css). It reloads itself every 15 s, so a list left
 * open stays true without a script: waits grow, campaigns decided leave it.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml } from './escape-html.ts';
import { type InboxRow, inboxOrder, waitedFor } from './inbox.ts';

const asset = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');
const CSS = asset('./theme.css') + asset('./inbox.css');

export interface InboxPageOptions {
  readonly now: Date;
  /** Who is looking (the link's name) and whether their link decides. */
  readonly reviewer: string;
  readonly role: 'view' | 'decide';
  /** A campaign's sheet, relative to the inbox page. */
  readonly sheetHref: (campaign: string) => string;
  /** Seconds between reloads; 0: none. */
  readonly refreshSeconds?: number;
}

/** "09:35 UTC" today, "Nov 25 09:35 UTC" before: when the oldest take was saved, at a glance. */
function sinceText(iso: string, now: Date): string {
  const at = new Date(iso);
  const time = `${at.toISOString().slice(11, 16)} UTC`;
  if (at.toISOString().slice(0, 10) === now.toISOString().slice(0, 10)) return time;
  return `${at.toLocaleString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' })} ${time}`;
}

function card(row: InboxRow, options: InboxPageOptions): string {
  const waited =
    row.oldestSince === null
      ? '<span class="wait">waiting</span>'
      : `<span class="wait" title="since ${escapeHtml(row.oldestSince)}">oldest waiting <strong>${escapeHtml(
          waitedFor(options.now.getTime() - Date.parse(row.oldestSince)),
        )}</strong></span><span class="since">since ${escapeHtml(sinceText(row.oldestSince, options.now))}</span>`;
  const steps = row.steps.map((step) => `<li>${escapeHtml(step.id)} <b>${step.awaiting}</b></li>`).join('');
  const takes = row.awaiting === 1 ? 'take awaits' : 'takes await';
  return `<li class="campaign" data-campaign="${escapeHtml(row.campaign)}">
<a href="${escapeHtml(options.sheetHref(row.campaign))}"><h2>${escapeHtml(row.campaign)}</h2>
<p class="count"><span class="n">${row.awaiting}</span> ${takes} review</p>
<div class="meta">${waited}<ul class="steps" aria-label="by step">${steps}</ul></div></a></li>`;
}

export function renderInbox(rows: readonly InboxRow[], options: InboxPageOptions): string {
  const ordered = inboxOrder(rows);
  const total = ordered.reduce((sum, row) => sum + row.awaiting, 0);
  const summary =
    ordered.length === 0
      ? 'nothing awaits review'
      : `${total} ${total === 1 ? 'take' : 'takes'} in ${ordered.length} ${ordered.length === 1 ? 'campaign' : 'campaigns'}`;
  const body =
    ordered.length === 0
      ? '<p class="empty">Nothing awaits review. New stills appear here as campaigns save them.</p>'
      : `<ol class="campaigns">${ordered.map((row) => card(row, options)).join('')}</ol>`;
  const refresh = options.refreshSeconds ?? 15;
  const viewOnly = options.role === 'view' ? ' (view only)' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refresh > 0 ? `<meta http-equiv="refresh" content="${refresh}">` : ''}
<title>Inbox · mediaflow review</title><style>${CSS}</style></head>
<body class="inbox">
<header class="top"><div class="title"><h1>Inbox</h1><p class="made">awaiting review · as of ${escapeHtml(
    options.now.toISOString().slice(11, 16),
  )} UTC</p></div><p id="summary" class="summary">${escapeHtml(summary)}</p></header>
<main>${body}</main>
<footer class="bar"><div id="status" role="status">reviewing as ${escapeHtml(options.reviewer)}${viewOnly}</div></footer>
</body></html>`;
}

// The page's client, part two (review/client.js is part one, in the same scope): hovering,
// filters, other axes, live updates, picture size.
// Hovering a picture shows its details (and plays its video); leaving it shows the focused one's.
for (const kind of ['mouseover', 'mouseout']) {
  sheets.addEventListener(kind, (event) => {
    const el = event.target.closest?.('.item');
    if (!el || (event.relatedTarget && el.contains(event.relatedTarget))) return;
    const video = el.querySelector('.thumb video');
    if (video) kind === 'mouseover' ? video.play().catch(() => {}) : video.pause();
    showDetail(kind === 'mouseover' ? el : itemOf(focusedKey));
  });
}

for (const button of document.querySelectorAll('.filter')) {
  button.addEventListener('click', () => {
    body.className = `f-${button.dataset.filter}`;
    for (const other of document.querySelectorAll('.filter'))
      other.setAttribute('aria-pressed', String(other === button));
  });
}

async function relayout() {
  const query = new URLSearchParams({
    rows: document.getElementById('rows').value,
    cols: document.getElementById('cols').value,
  });
  history.replaceState(null, '', `?${query}`);
  const response = await fetch(`sheets?${query}`);
  sheets.innerHTML = await response.text();
  fitThumbs();
  paintSelection();
  markPending();
}
for (const id of ['rows', 'cols']) document.getElementById(id)?.addEventListener('change', relayout);

/** The server's count of changes this page has seen (page.ts renders the first). */
let generation = Number(body.dataset.generation ?? 0);

/** Swaps the items the server says changed, keeping focus, selection and pending marks. */
async function poll() {
  try {
    const response = await fetch(`changes?since=${generation}`);
    if (!response.ok) return;
    const changes = await response.json();
    generation = changes.generation;
    document.getElementById('totals').innerHTML = changes.totals;
    for (const [step, counts] of Object.entries(changes.counts)) {
      const line = document.querySelector(`.step[data-step="${CSS.escape(step)}"] .counts`);
      if (line) line.innerHTML = counts;
    }
    for (const [key, html] of Object.entries(changes.items)) {
      const old = itemOf(key);
      if (!old) continue;
      old.insertAdjacentHTML('afterend', html);
      old.remove();
      // Accepted decisions are recorded before they are acknowledged: the item's next change is theirs.
      acked.delete(key);
    }
    if (Object.keys(changes.items).length > 0) {
      paintSelection();
      markPending();
      if (focusedKey && changes.items[focusedKey]) showDetail(itemOf(focusedKey));
    }
  } catch {
    // The server went away (the command ended): the page stays as it was.
  }
}
/** The sheet's gaps (page.css): between its columns, between the cards of a cell, its padding. */
const COLUMN_GAP = 12;
const CARD_GAP = 8;
const SHEET_PADDING = 8;

/**
 * Pictures as large as each sheet's widest row allows (between 88 and 320 px): a sheet of four
 * stills is not a strip of stamps, one of forty still fits the window, and a sheet of many columns
 * (ten at 1400 px) makes its own pictures smaller, not every sheet's. Past the smallest size a sheet
 * scrolls sideways in its own box (page.css), its row heads in view: nothing hides under the details.
 */
function fitThumbs() {
  for (const sheet of document.querySelectorAll('.sheet')) {
    const cols = Number(sheet.style.getPropertyValue('--cols')) || 1;
    const cells = [...sheet.querySelectorAll('.cell')];
    let widest = 1;
    let columns = 1;
    for (let at = 0; at < cells.length; at += cols) {
      const row = cells.slice(at, at + cols);
      const items = row.reduce((n, cell) => n + Math.min(4, Math.max(1, cell.children.length)), 0);
      if (items > widest) [widest, columns] = [items, row.length];
    }
    // A row is its head, a gap before each column, and each cell's cards with gaps between them.
    const heads = sheet.querySelector('.rowhead')?.getBoundingClientRect().width ?? 0;
    const room =
      sheet.clientWidth - SHEET_PADDING - heads - COLUMN_GAP * columns - CARD_GAP * (widest - columns);
    const size = Math.max(88, Math.min(320, Math.floor(room / widest)));
    sheet.style.setProperty('--thumb', `${size}px`);
  }
}
window.addEventListener('resize', fitThumbs);
fitThumbs();
if (reviewing) setInterval(poll, Number(body.dataset.poll ?? 1500));
if (reviewing && body.dataset.reviewer)
  say(`reviewing as ${text(body.dataset.reviewer)}${viewOnly ? ' (view only)' : ''}`);
focusItem(visible()[0]);

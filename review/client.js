// The page's hand-written client (no framework: the page is server-rendered, this only moves the
// focus, keeps the selection, holds decisions a moment so `z` can undo them, and swaps the items
// the server says changed). Inlined by review/page.ts; also runs read-only in report.html.
// Part one of two (page.ts puts both in one function scope): focus, selection, decisions.
const body = document.body;
const reviewing = body.dataset.mode === 'review';
/** The link this page was opened with says who is looking and whether they may decide. */
const viewOnly = body.dataset.role === 'view';
const delay = Number(body.dataset.delay ?? 2500);
const status = document.getElementById('status');
const detail = document.getElementById('detail');
const sheets = document.getElementById('sheets');
let focusedKey = null;
let anchorKey = null;
const selected = new Set();
/** Groups of decisions not sent yet, the last one first to undo: [{ action, keys }]. */
let pending = [];
/** Decisions the workflow accepted, shown until the item next changes: key → action. */
const acked = new Map();
let timer = null;

const visible = () => [...document.querySelectorAll('.item')].filter((el) => el.offsetParent !== null);
const itemOf = (key) => document.querySelector(`.item[data-key="${key}"]`);
const say = (html) => {
  status.innerHTML = html;
};
const text = (value) => {
  const span = document.createElement('span');
  span.textContent = value;
  return span.innerHTML;
};

function paintSelection() {
  for (const el of document.querySelectorAll('.item')) {
    el.setAttribute('aria-selected', String(selected.has(el.dataset.key)));
    el.classList.toggle('focused', el.dataset.key === focusedKey);
    el.tabIndex = el.dataset.key === focusedKey ? 0 : -1;
  }
  document.getElementById('selection').textContent = selected.size > 1 ? `${selected.size} selected` : '';
}

function showDetail(el) {
  if (!el) return;
  const media = el.querySelector('.thumb img, .thumb video');
  let preview = media ? media.cloneNode(true) : null;
  // A still whose video landed shows the still here; its videos follow below.
  if (media?.hasAttribute('data-still')) {
    preview = new Image();
    preview.src = media.getAttribute('poster');
    preview.alt = '';
  } else if (preview instanceof HTMLVideoElement) {
    preview.controls = true;
    preview.autoplay = true;
  }
  detail.innerHTML = `<div class="preview"></div>${el.querySelector('.info').innerHTML}`;
  if (preview) detail.querySelector('.preview').append(preview);
}

function focusItem(el, { extend = false, toggle = false } = {}) {
  if (!el) return;
  const items = visible();
  if (extend && anchorKey) {
    const from = items.findIndex((i) => i.dataset.key === anchorKey);
    const to = items.indexOf(el);
    if (from >= 0 && to >= 0) {
      for (let i = Math.min(from, to); i <= Math.max(from, to); i++) selected.add(items[i].dataset.key);
    }
  } else if (toggle) {
    if (selected.has(el.dataset.key)) selected.delete(el.dataset.key);
    else selected.add(el.dataset.key);
    anchorKey = el.dataset.key;
  } else {
    selected.clear();
    selected.add(el.dataset.key);
    anchorKey = el.dataset.key;
  }
  focusedKey = el.dataset.key;
  paintSelection();
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  showDetail(el);
}

/** The nearest item in a direction, by position on screen (rows of a sheet wrap). */
function neighbour(el, dx, dy) {
  const items = visible();
  if (dx !== 0) return items[items.indexOf(el) + dx];
  const here = el.getBoundingClientRect();
  let best = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const other of items) {
    const box = other.getBoundingClientRect();
    const down = box.top - here.top;
    if (dy > 0 ? down <= here.height / 2 : down >= -here.height / 2) continue;
    const score = Math.abs(down) * 4 + Math.abs(box.left - here.left);
    if (score < bestScore) [best, bestScore] = [other, score];
  }
  return best;
}

const MOVES = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const ACTIONS = { a: 'approve', r: 'reject', g: 'regenerate' };

function markPending() {
  const marks = new Map(acked);
  for (const group of pending) for (const key of group.keys) marks.set(key, group.action);
  for (const el of document.querySelectorAll('.item')) {
    const action = marks.get(el.dataset.key);
    el.classList.toggle('pending', action !== undefined);
    if (action) el.dataset.pending = action;
    else delete el.dataset.pending;
  }
  const count = pending.reduce((n, group) => n + group.keys.length, 0);
  if (count > 0)
    say(`${count} decision${count > 1 ? 's' : ''} pending, sent in ${delay / 1000} s · <kbd>z</kbd> undoes`);
}

/** A derived file is decided here only when its derive step is reviewed and the file is made. */
const decidable = (key) => key && !itemOf(key)?.hasAttribute('data-readonly');

/** Why a derived file takes no decision, and where it is decided instead. */
function sayReadOnly(key) {
  const el = itemOf(key);
  if (el?.dataset.readonly !== 'reviewed')
    return say('derived files are read-only: decide on the output they are made from');
  const name = text(el.dataset.name ?? key);
  // A file that could not be made has no decision to take (docs/review.md, "Derivatives").
  say(
    el.dataset.state === 'failed'
      ? `${name} could not be made: nothing to decide`
      : `${name} is not made yet: it is decided once it is`,
  );
}

function decide(action, prompt) {
  const chosen = prompt ? [focusedKey] : selected.size > 0 ? [...selected] : focusedKey ? [focusedKey] : [];
  const keys = chosen.filter(decidable);
  if (keys.length === 0) {
    if (chosen.length > 0) sayReadOnly(chosen[0]);
    return;
  }
  pending.push({ action, keys, prompt });
  markPending();
  clearTimeout(timer);
  timer = setTimeout(send, delay);
  // Move on, as a person triaging expects: the next item gets the focus.
  if (keys.length === 1) focusItem(neighbour(itemOf(keys[0]), 1, 0) ?? itemOf(keys[0]));
}

function undo() {
  const group = pending.pop();
  if (!group) return say('nothing to undo: decisions already sent stay');
  markPending();
  if (pending.length === 0) {
    clearTimeout(timer);
    say(`undone: ${group.action} of ${group.keys.length}`);
  }
}

async function send() {
  const latest = new Map();
  for (const group of pending) for (const key of group.keys) latest.set(key, group);
  pending = [];
  const decisions = [...latest].map(([key, { action, prompt }]) =>
    prompt ? { key, action, prompt } : { key, action },
  );
  say(`sending ${decisions.length} decision${decisions.length > 1 ? 's' : ''}…`);
  try {
    const response = await fetch('decisions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions }),
    });
    const ack = await response.json();
    if (!response.ok) throw new Error(ack.message ?? response.statusText);
    const sent = new Map(decisions.map((d) => [d.key, d.action]));
    // Marked until the item next changes, unless the page has already shown that change (a
    // poll can bring it before this answer arrives: decisions are recorded, then acknowledged).
    for (const key of ack.accepted)
      if (itemOf(key)?.dataset.state === 'awaiting') acked.set(key, sent.get(key));
    const name = (key) => itemOf(key)?.dataset.name ?? key;
    const refused = ack.refused
      .map((r) => `<span class="refused">${text(name(r.key))}: ${text(r.message)}</span>`)
      .join(' · ');
    const applied = ack.accepted.length > 0 ? `<span class="ok">${ack.accepted.length} applied</span>` : '';
    say([applied, refused].filter(Boolean).join(' · '));
  } catch (error) {
    say(`<span class="refused">not sent: ${text(String(error.message ?? error))}</span>`);
  }
  markPending();
  poll();
}

document.addEventListener('keydown', (event) => {
  // Typing in a field (the prompt dialog, a select) is not triage.
  if (event.target.closest?.('select, textarea, input, dialog') || event.altKey) return;
  const focused = focusedKey ? itemOf(focusedKey) : null;
  const move = MOVES[event.key];
  if (move) {
    event.preventDefault();
    const start = focused && focused.offsetParent !== null ? focused : null;
    focusItem(start ? neighbour(start, ...move) : visible()[0], { extend: event.shiftKey });
    return;
  }
  if (event.ctrlKey || event.metaKey) return;
  if (event.key === 'Escape') {
    selected.clear();
    if (focusedKey) selected.add(focusedKey);
    paintSelection();
  } else if (reviewing && viewOnly && (ACTIONS[event.key] || event.key === 'p'))
    say(`<span class="refused">${text(body.dataset.reviewer)}’s link may view, not decide</span>`);
  else if (reviewing && ACTIONS[event.key]) decide(ACTIONS[event.key]);
  else if (reviewing && event.key === 'z') undo();
  else if (reviewing && event.key === 'p' && focused) askPrompt(focused, event);
});

/** A new prompt for the focused picture, where its step allows one (review.edit_prompt). */
function askPrompt(el, event) {
  const dialog = document.getElementById('prompt-dialog');
  if (!decidable(el.dataset.key)) {
    sayReadOnly(el.dataset.key);
    return;
  }
  if (el.closest('.step')?.dataset.derivedFrom) {
    say(
      "a derived file has no prompt: edit the derive step's operations, or regenerate the output it is made from",
    );
    return;
  }
  if (el.closest('.step')?.dataset.editPrompt !== 'true') {
    say('this step keeps its prompt: <kbd>g</kbd> regenerates with the same one');
    return;
  }
  event.preventDefault();
  const field = dialog.querySelector('textarea');
  field.value = el.querySelector('.info .prompt')?.textContent ?? '';
  dialog.querySelector('.for').textContent = el.querySelector('.name').textContent;
  dialog.returnValue = '';
  dialog.showModal();
  field.select();
  dialog.addEventListener(
    'close',
    () => {
      if (dialog.returnValue === 'ok' && field.value.trim()) decide('regenerate', field.value.trim());
      el.focus({ preventScroll: true });
    },
    { once: true },
  );
}

sheets.addEventListener('click', (event) => {
  const el = event.target.closest('.item');
  if (el) focusItem(el, { extend: event.shiftKey, toggle: event.ctrlKey || event.metaKey });
});
sheets.addEventListener('focusin', (event) => {
  const el = event.target.closest?.('.item');
  if (el && el.dataset.key !== focusedKey) focusItem(el);
});

/**
 * Grants within every cap (docs/caps.md, "Reservations, not tokens"): an ask is for whole jobs'
 * worst cases (`unit` × `count`), granted in as many whole units as fit under the tightest cap
 * that covers its model, so no campaign holds a fragment too small for a job while another
 * waits. What does not fit is held, and its campaign told which cap holds it. Held asks are served
 * again, highest priority first and then in the order they came, whenever room may have grown.
 */
import type { Micros } from '../../../api/money.ts';
import { type CapHold, type CapRef, capsList } from '../../../contract/caps.ts';
import type { CapsAsk } from '../../../contract/caps-messages.ts';
import { alertOnce } from './alerts.ts';
import type { Draft, RunDraft } from './draft.ts';
import type { CapsEffect } from './effects.ts';
import { committedOf, type HeldAsk, spentOf } from './state.ts';

/** The execution an ask or report names, recorded on first sight. */
export function runOf(d: Draft, run: string, campaign: string): RunDraft {
  const known = d.runs[run];
  if (known) return known;
  const fresh: RunDraft = { campaign, granted: {}, spent: {}, returned: {}, asked: -1, left: null };
  d.runs[run] = fresh;
  return fresh;
}

/** A campaign asks for more reservation: granted in whole units as far as every cap allows. */
export function asked(d: Draft, ask: CapsAsk): CapsEffect[] {
  if (ask.run !== undefined) {
    const run = d.runs[ask.run];
    // Late from an execution that left (its leave came first), or one already answered.
    if (run && run.left !== null) return [];
    if (run && ask.seq !== undefined && ask.seq <= run.asked) return [];
    const record = runOf(d, ask.run, ask.campaign);
    if (ask.seq !== undefined) record.asked = ask.seq;
  }
  // One held ask per execution (or campaign) and model: a newer ask replaces it.
  d.held = d.held.filter((h) => !sameAsker(h, ask) || h.model !== ask.model);
  return serve(d, ask);
}

/** Held asks, highest priority first then oldest first, each served again if it fits now. */
export function serveHeld(d: Draft): CapsEffect[] {
  const held = d.held
    .map((ask, order) => ({ ask, order }))
    .sort((a, b) => (b.ask.priority ?? 0) - (a.ask.priority ?? 0) || a.order - b.order)
    .map(({ ask }) => ask);
  d.held = [];
  return held.flatMap((ask) => serve(d, ask));
}

/** Grants what fits of `ask`; what does not is held, and told when its hold is news. */
function serve(d: Draft, ask: HeldAsk): CapsEffect[] {
  const rooms = capsList(d.caps)
    .filter((ref) => ref.model === null || ref.model === ask.model)
    .map((ref) => ({ ref, room: ref.limit - spentOf(d, ref) - committedOf(d, ref) }));
  const unit = Math.max(1, ask.unit);
  const tightest = rooms.reduce<{ ref: CapRef; room: Micros } | null>(
    (a, b) => (a === null || b.room < a.room ? b : a),
    null,
  );
  const fit = tightest === null ? ask.count : Math.max(0, Math.floor(tightest.room / unit));
  const units = Math.min(ask.count, fit);
  const run = ask.run === undefined ? null : runOf(d, ask.run, ask.campaign);
  if (units > 0) {
    const micros = units * unit;
    if (run) run.granted[ask.model] = (run.granted[ask.model] ?? 0) + micros;
    else {
      const mine = d.reserved[ask.campaign] ?? {};
      mine[ask.model] = (mine[ask.model] ?? 0) + micros;
      d.reserved[ask.campaign] = mine;
    }
    return [grantOf(ask, micros, null, run)];
  }
  if (tightest === null) return [];
  const hold: CapHold = {
    ...tightest.ref,
    spent: spentOf(d, tightest.ref),
    committed: committedOf(d, tightest.ref),
  };
  d.held.push({ ...ask, told: hold });
  if (ask.told && sameHold(ask.told, hold)) return [];
  return [grantOf(ask, 0, hold, run), ...alertOnce(d, ask.campaign, tightest.ref, 100)];
}

function grantOf(ask: CapsAsk, micros: Micros, hold: CapHold | null, run: RunDraft | null): CapsEffect {
  const about = run && ask.run !== undefined ? { run: ask.run, granted: run.granted[ask.model] ?? 0 } : {};
  return { kind: 'grant', campaign: ask.campaign, grant: { model: ask.model, micros, hold, ...about } };
}

/** The same asker: the same execution, or for notes without one, the same campaign. */
export function sameAsker(
  held: CapsAsk,
  other: { readonly campaign: string; readonly run?: string },
): boolean {
  return held.run === undefined || other.run === undefined
    ? held.run === other.run && held.campaign === other.campaign
    : held.run === other.run;
}

/**
 * A hold is told again when what it says is spent changes, not on every reservation granted or
 * given back elsewhere: the campaign's line follows the spend, and the ledger sends no more
 * messages than it did before holds carried what is committed (its replays stay the same).
 */
function sameHold(a: CapHold, b: CapHold): boolean {
  return a.cap === b.cap && a.model === b.model && a.limit === b.limit && a.spent === b.spent;
}

/**
 * A capped campaign's part of its key's spend caps (docs/caps.md): the reservation the caps
 * ledger granted it per model, what its jobs being created or in flight have committed of it,
 * spend not yet reported to the ledger, and the cap holding it, if one does. A job starts only
 * when its worst case fits the reservation beside what is committed (selection.ts), so spent plus
 * committed across every campaign on the key stays within each cap. Carried across continue-as-new.
 *
 * A campaign whose notes name its execution (`run`) keeps cumulative figures per model too (granted,
 * charged, given back): its notes carry them, so the ledger tells a late note from a new one, and a
 * grant it already took (the same total again, or a smaller one) changes nothing.
 */
import type { Micros } from '../../../api/money.ts';
import type { CapHold, CarriedAllowance } from '../../../contract/caps.ts';

export type { CarriedAllowance };

/** A short model: jobs wait for `unit`-priced reservation the campaign must ask for. */
export interface CapNeed {
  readonly model: string;
  readonly unit: Micros;
  /** The ask's number in this execution (only with `run`). */
  readonly seq?: number;
}

/**
 * Plain data (the reducer's state is one JSON object): the functions below move it. Micros per
 * model, in the order models were first met (model labels are never integer-like keys, so a record
 * keeps that order as a Map did).
 */
export interface AllowanceState {
  reserved: Record<string, Micros>;
  readonly committed: Record<string, Micros>;
  unreported: Record<string, Micros>;
  /** Models asked for and not answered yet: never two asks at once for one model. */
  readonly asking: Record<string, true>;
  /** Models short of reservation since the last ask: the reducer asks for them. */
  needs: Record<string, Micros>;
  /** The cap holding this campaign back; null while it is not held. */
  hold: CapHold | null;
  /** Campaign-clock time of the last spend report (engine/caps.ts paces them); null: none yet. */
  reportedAt: number | null;
  /** The execution the ledger knows this campaign by; null: its notes are deltas (older runs). */
  readonly run: string | null;
  /** With `run`, per model since the execution began: granted, charged, given back. */
  readonly granted: Record<string, Micros>;
  readonly charged: Record<string, Micros>;
  readonly returned: Record<string, Micros>;
  /** With `run`: asks sent so far (the next one's number). */
  asks: number;
  /** With `run`: reservation was given back since the last report (the next report says so). */
  gaveBack: boolean;
}

export function allowanceOf(carried?: CarriedAllowance): AllowanceState {
  const totals = carried?.totals;
  return {
    reserved: Object.fromEntries(carried?.reserved ?? []),
    committed: {},
    unreported: Object.fromEntries(carried?.unreported ?? []),
    asking: {},
    needs: {},
    hold: carried?.hold ?? null,
    reportedAt: null,
    run: carried?.run ?? null,
    granted: Object.fromEntries(totals?.granted ?? []),
    charged: Object.fromEntries(totals?.charged ?? []),
    returned: Object.fromEntries(totals?.returned ?? []),
    asks: totals?.asks ?? 0,
    gaveBack: false,
  };
}

/** Does a job of `usd` on `model` fit, beside `also` already selected on the same model? */
export function fits(a: AllowanceState, model: string, usd: Micros, also: Micros): boolean {
  return (a.committed[model] ?? 0) + also + usd <= (a.reserved[model] ?? 0);
}

/** A job did not fit: it waits for reservation of at least its price. */
export function short(a: AllowanceState, model: string, unit: Micros): void {
  if (a.asking[model] !== true) a.needs[model] = Math.max(unit, a.needs[model] ?? 0);
}

/** The needs to ask for now; each is then asked until the ledger answers. */
export function takeNeeds(a: AllowanceState): CapNeed[] {
  const needs = Object.entries(a.needs).map(([model, unit]) =>
    a.run === null ? { model, unit } : { model, unit, seq: a.asks++ },
  );
  a.needs = {};
  for (const { model } of needs) a.asking[model] = true;
  return needs;
}

/**
 * The ledger's answer: reservation granted (the hold ends), or the ask held by a cap. With a
 * total (`granted`), only what it adds to the totals already taken counts: a repeated or late
 * grant adds nothing, and a hold older than a grant taken since is no longer news.
 */
export function granted(
  a: AllowanceState,
  model: string,
  micros: Micros,
  hold: CapHold | null,
  total?: Micros,
): void {
  if (a.run !== null && total !== undefined) {
    const known = a.granted[model] ?? 0;
    if (total < known || (total === known && micros > 0)) return;
    if (total > known) {
      a.granted[model] = total;
      a.reserved[model] = (a.reserved[model] ?? 0) + (total - known);
      answered(a, model);
      return;
    }
    a.hold = hold;
    return;
  }
  if (micros > 0) {
    a.reserved[model] = (a.reserved[model] ?? 0) + micros;
    answered(a, model);
    return;
  }
  a.hold = hold;
}

function answered(a: AllowanceState, model: string): void {
  delete a.asking[model];
  if (isEmpty(a.asking)) a.hold = null;
}

export function commit(a: AllowanceState, model: string, usd: Micros): void {
  a.committed[model] = (a.committed[model] ?? 0) + usd;
}

export function release(a: AllowanceState, model: string, usd: Micros): void {
  a.committed[model] = (a.committed[model] ?? 0) - usd;
}

/** Paid for a job: the reservation becomes spent, to be reported to the ledger. */
export function charge(a: AllowanceState, model: string, paid: Micros): void {
  if (paid <= 0) return;
  a.reserved[model] = (a.reserved[model] ?? 0) - paid;
  a.unreported[model] = (a.unreported[model] ?? 0) + paid;
  if (a.run !== null) a.charged[model] = (a.charged[model] ?? 0) + paid;
}

/**
 * Reservation no job can need any more goes back: beyond what is committed and `keep` (the worst
 * cases of the jobs that may still start, per model). Only with `run`: the ledger takes it back
 * from the cumulative `returned` of the next report.
 */
export function giveBack(a: AllowanceState, keep: Readonly<Record<string, Micros>>): void {
  if (a.run === null) return;
  for (const [model, reserved] of Object.entries(a.reserved)) {
    const spare = reserved - (a.committed[model] ?? 0) - (keep[model] ?? 0);
    if (spare <= 0) continue;
    a.reserved[model] = reserved - spare;
    a.returned[model] = (a.returned[model] ?? 0) + spare;
    a.gaveBack = true;
  }
}

/** Spend not yet reported, per model, and from now on reported. */
export function takeUnreported(a: AllowanceState): Record<string, Micros> {
  const spent = a.unreported;
  a.unreported = {};
  a.gaveBack = false;
  return spent;
}

export function hasUnreported(a: AllowanceState): boolean {
  return !isEmpty(a.unreported);
}

export function carry(a: AllowanceState): CarriedAllowance {
  const carried = {
    reserved: Object.entries(a.reserved),
    unreported: Object.entries(a.unreported),
    hold: a.hold,
  };
  if (a.run === null) return carried;
  return {
    ...carried,
    run: a.run,
    totals: {
      granted: Object.entries(a.granted),
      charged: Object.entries(a.charged),
      returned: Object.entries(a.returned),
      asks: a.asks,
    },
  };
}

/** A record of a few models (one per model the campaign runs) names none. */
function isEmpty(models: Record<string, unknown>): boolean {
  return Object.keys(models).length === 0;
}

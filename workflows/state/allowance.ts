/**
 * A capped campaign's part of its key's spend caps (docs/caps.md): the reservation the caps
 * ledger granted it per model, what its jobs being created or in flight have committed of it,
 * spend not yet reported to the ledger, and the cap holding it, if one does. A job starts only
 * when its worst case fits the reservation beside what is committed (selection.ts), so spent plus
 * committed across every campaign on the key stays within each cap. Carried across continue-as-new.
 */
import type { Micros } from '../../api/money.ts';
import type { CapHold, CarriedAllowance } from '../../contract/caps.ts';

export type { CarriedAllowance };

/** A short model: jobs wait for `unit`-priced reservation the campaign must ask for. */
export interface CapNeed {
  readonly model: string;
  readonly unit: Micros;
}

/**
 * Plain data (the reducer's state is one JSON object, issue 19): the functions below move it.
 * Micros per model, in the order models were first met (model labels are never integer-like keys,
 * so a record keeps that order as a Map did).
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
  /** Campaign-clock time of the last spend report (reducer/caps.ts paces them); null: none yet. */
  reportedAt: number | null;
}

export function allowanceOf(carried?: CarriedAllowance): AllowanceState {
  return {
    reserved: Object.fromEntries(carried?.reserved ?? []),
    committed: {},
    unreported: Object.fromEntries(carried?.unreported ?? []),
    asking: {},
    needs: {},
    hold: carried?.hold ?? null,
    reportedAt: null,
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
  const needs = Object.entries(a.needs).map(([model, unit]) => ({ model, unit }));
  a.needs = {};
  for (const { model } of needs) a.asking[model] = true;
  return needs;
}

/** The ledger's answer: reservation granted (the hold ends), or the ask held by a cap. */
export function granted(a: AllowanceState, model: string, micros: Micros, hold: CapHold | null): void {
  if (micros > 0) {
    a.reserved[model] = (a.reserved[model] ?? 0) + micros;
    delete a.asking[model];
    if (isEmpty(a.asking)) a.hold = null;
    return;
  }
  a.hold = hold;
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
}

/** Spend not yet reported, per model, and from now on reported. */
export function takeUnreported(a: AllowanceState): Record<string, Micros> {
  const spent = a.unreported;
  a.unreported = {};
  return spent;
}

export function hasUnreported(a: AllowanceState): boolean {
  return !isEmpty(a.unreported);
}

export function carry(a: AllowanceState): CarriedAllowance {
  return { reserved: Object.entries(a.reserved), unreported: Object.entries(a.unreported), hold: a.hold };
}

/** A record of a few models (one per model the campaign runs) names none. */
function isEmpty(models: Record<string, unknown>): boolean {
  return Object.keys(models).length === 0;
}

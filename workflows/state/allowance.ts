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

export class Allowance {
  private readonly reserved: Map<string, Micros>;
  private readonly committed = new Map<string, Micros>();
  private unreported: Map<string, Micros>;
  /** Models asked for and not answered yet: never two asks at once for one model. */
  private readonly asking = new Set<string>();
  /** Models short of reservation since the last ask: the reducer asks for them. */
  private readonly needs = new Map<string, Micros>();
  /** The cap holding this campaign back; null while it is not held. */
  hold: CapHold | null;
  /** Campaign-clock time of the last spend report (reducer/caps.ts paces them). */
  reportedAt = Number.NEGATIVE_INFINITY;

  constructor(carried?: CarriedAllowance) {
    this.reserved = new Map(carried?.reserved ?? []);
    this.unreported = new Map(carried?.unreported ?? []);
    this.hold = carried?.hold ?? null;
  }

  /** Does a job of `usd` on `model` fit, beside `also` already selected on the same model? */
  fits(model: string, usd: Micros, also: Micros): boolean {
    return (this.committed.get(model) ?? 0) + also + usd <= (this.reserved.get(model) ?? 0);
  }

  /** A job did not fit: it waits for reservation of at least its price. */
  short(model: string, unit: Micros): void {
    if (!this.asking.has(model)) this.needs.set(model, Math.max(unit, this.needs.get(model) ?? 0));
  }

  /** The needs to ask for now; each is then asked until the ledger answers. */
  takeNeeds(): CapNeed[] {
    const needs = [...this.needs].map(([model, unit]) => ({ model, unit }));
    this.needs.clear();
    for (const { model } of needs) this.asking.add(model);
    return needs;
  }

  /** The ledger's answer: reservation granted (the hold ends), or the ask held by a cap. */
  granted(model: string, micros: Micros, hold: CapHold | null): void {
    if (micros > 0) {
      this.reserved.set(model, (this.reserved.get(model) ?? 0) + micros);
      this.asking.delete(model);
      if (this.asking.size === 0) this.hold = null;
      return;
    }
    this.hold = hold;
  }

  commit(model: string, usd: Micros): void {
    this.committed.set(model, (this.committed.get(model) ?? 0) + usd);
  }

  release(model: string, usd: Micros): void {
    this.committed.set(model, (this.committed.get(model) ?? 0) - usd);
  }

  /** Paid for a job: the reservation becomes spent, to be reported to the ledger. */
  charge(model: string, paid: Micros): void {
    if (paid <= 0) return;
    this.reserved.set(model, (this.reserved.get(model) ?? 0) - paid);
    this.unreported.set(model, (this.unreported.get(model) ?? 0) + paid);
  }

  /** Spend not yet reported, per model, and from now on reported. */
  takeUnreported(): Record<string, Micros> {
    const spent = Object.fromEntries(this.unreported);
    this.unreported = new Map();
    return spent;
  }

  get hasUnreported(): boolean {
    return this.unreported.size > 0;
  }

  carry(): CarriedAllowance {
    return { reserved: [...this.reserved], unreported: [...this.unreported], hold: this.hold };
  }
}

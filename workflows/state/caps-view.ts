/**
 * A capped campaign's allowance as its callers reach it today, `state.caps` (reducer/caps.ts,
 * progress.ts, campaign.ts): a view over the plain data of allowance.ts that holds nothing of its
 * own, so the reducer's state stays one plain object (issue 19). Once the callers call
 * allowance.ts's functions on the data themselves, this view goes.
 */
import type { Micros } from '../../api/money.ts';
import type { CapHold, CarriedAllowance } from '../../contract/caps.ts';
import * as Allowance from './allowance.ts';

export class CapsView {
  /** The allowance itself, plain data. */
  readonly data: Allowance.AllowanceState;

  constructor(data: Allowance.AllowanceState) {
    this.data = data;
  }

  /** The cap holding this campaign back; null while it is not held. */
  get hold(): CapHold | null {
    return this.data.hold;
  }

  /** Campaign-clock time of the last spend report (reducer/caps.ts paces them); -Infinity: none yet. */
  get reportedAt(): number {
    return this.data.reportedAt ?? Number.NEGATIVE_INFINITY;
  }
  set reportedAt(at: number) {
    this.data.reportedAt = Number.isFinite(at) ? at : null;
  }

  get hasUnreported(): boolean {
    return Allowance.hasUnreported(this.data);
  }

  fits(model: string, usd: Micros, also: Micros): boolean {
    return Allowance.fits(this.data, model, usd, also);
  }
  short(model: string, unit: Micros): void {
    Allowance.short(this.data, model, unit);
  }
  takeNeeds(): Allowance.CapNeed[] {
    return Allowance.takeNeeds(this.data);
  }
  granted(model: string, micros: Micros, hold: CapHold | null): void {
    Allowance.granted(this.data, model, micros, hold);
  }
  commit(model: string, usd: Micros): void {
    Allowance.commit(this.data, model, usd);
  }
  release(model: string, usd: Micros): void {
    Allowance.release(this.data, model, usd);
  }
  charge(model: string, paid: Micros): void {
    Allowance.charge(this.data, model, paid);
  }
  takeUnreported(): Record<string, Micros> {
    return Allowance.takeUnreported(this.data);
  }
  carry(): CarriedAllowance {
    return Allowance.carry(this.data);
  }
}

/**
 * Money of one campaign run, exact in micro-dollars (decision 4): what the service charged, what
 * the jobs being created or in flight may still cost, and why submission stopped, if it did.
 * Spent + committed never passes the budget.
 */
import type { Micros } from '../../api/money.ts';
import { fitsBudget } from '../../contract/budget-rule.ts';
import type { CampaignOutcome } from '../../contract/campaign.ts';

export type StopReason = Exclude<CampaignOutcome, 'running' | 'completed'>;

export class Budget {
  committed: Micros = 0;

  readonly limit: Micros | null;
  public spent: Micros;
  public stopReason: CampaignOutcome | null;
  /** The words of the failure that stopped the campaign, for the user. */
  public stopMessage: string | null;

  constructor(
    limit: Micros | null,
    spent: Micros,
    stopReason: CampaignOutcome | null,
    stopMessage: string | null = null,
  ) {
    this.limit = limit;
    this.spent = spent;
    this.stopReason = stopReason;
    this.stopMessage = stopMessage;
  }

  /** Would a job of this price, next to `alsoCommitted` more, still fit? */
  fits(usd: Micros, alsoCommitted: Micros = 0): boolean {
    return fitsBudget(this.limit, usd, this.spent + this.committed + alsoCommitted);
  }

  commit(usd: Micros): void {
    this.committed += usd;
  }

  release(usd: Micros): void {
    this.committed -= usd;
  }

  charge(usd: Micros): void {
    this.spent += usd;
  }

  /** The first reason to stop wins: later ones do not overwrite it. */
  stop(reason: StopReason, message: string | null = null): void {
    if (this.stopReason !== null) return;
    this.stopReason = reason;
    this.stopMessage = message;
  }

  /** A cancel overrides any earlier reason: the user's word is the outcome. */
  cancel(): void {
    this.stopReason = 'canceled';
  }

  get stopped(): boolean {
    return this.stopReason !== null;
  }
}

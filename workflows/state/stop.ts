/**
 * Why a campaign run stopped submitting, if it did: the first condition that stopped it (the
 * budget reached, the balance exhausted, a full disk, a deleted key…) with the words of the
 * failure for the user, or the user's cancel, which overrides any of them. Not the budget's:
 * most stops have nothing to do with money.
 */
import type { CampaignOutcome } from '../../contract/campaign.ts';

export type StopReason = Exclude<CampaignOutcome, 'running' | 'completed'>;

export class Stop {
  reason: StopReason | null;
  /** The words of the failure that stopped the campaign, for the user. */
  message: string | null;

  constructor(reason: StopReason | null, message: string | null = null) {
    this.reason = reason;
    this.message = message;
  }

  get stopped(): boolean {
    return this.reason !== null;
  }

  /** The first reason to stop wins: later ones do not overwrite it. */
  stop(reason: StopReason, message: string | null = null): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.message = message;
  }

  /** A cancel overrides any earlier reason: the user's word is the outcome. */
  cancel(): void {
    this.reason = 'canceled';
  }
}

/**
 * Why a campaign run stopped submitting, if it did: the first condition that stopped it (the
 * budget reached, the balance exhausted, a full disk, a deleted key…) with the words of the
 * failure for the user, or the user's cancel, which overrides any of them. Not the budget's:
 * most stops have nothing to do with money.
 *
 * Plain data (the model is one JSON object) with free functions over it.
 */
import type { CampaignOutcome } from '../../../contract/campaign.ts';
import { effectOf, type FailureKind } from '../../../contract/failure-policy.ts';

export type StopReason = Exclude<CampaignOutcome, 'running' | 'completed'>;

export interface StopState {
  reason: StopReason | null;
  /** The words of the failure that stopped the campaign, for the user. */
  message: string | null;
}

export function stopOf(reason: StopReason | null, message: string | null = null): StopState {
  return { reason, message };
}

export function stopped(s: StopState): boolean {
  return s.reason !== null;
}

/** The first reason to stop wins: later ones do not overwrite it. */
export function stop(s: StopState, reason: StopReason, message: string | null = null): void {
  if (s.reason !== null) return;
  s.reason = reason;
  s.message = message;
}

/** The stop a failure of this kind calls for (contract/failure-policy.ts), or null: none, or no kind. */
export function stopFor(failure: FailureKind | null): StopReason | null {
  const effect = failure === null ? null : effectOf(failure);
  return effect?.kind === 'stop_campaign' ? effect.outcome : null;
}

/** A cancel overrides any earlier reason: the user's word is the outcome. */
export function cancel(s: StopState): void {
  s.reason = 'canceled';
}

/**
 * What reaches a key's rate governor, as events of its engine (step.ts): the thin workflow
 * (workflows/governor/governor.ts) turns each signal, its wait's end and a failed send into one.
 */
import type { ServiceLimits } from '../../../contract/campaign.ts';
import type { Claim } from '../../../contract/governor-messages.ts';
import type { Throttle } from './state.ts';

export type GovernorEvent =
  | { readonly kind: 'join'; readonly claim: Claim }
  | { readonly kind: 'leave'; readonly campaign: string }
  | { readonly kind: 'limits'; readonly limits: ServiceLimits }
  | { readonly kind: 'need'; readonly campaign: string; readonly perSecond: number }
  | { readonly kind: 'throttled'; readonly throttle: Throttle }
  /** A share could not be sent: the campaign is closed (ended, terminated). */
  | { readonly kind: 'gone'; readonly campaign: string }
  /** The loop's wait ended: something is due (`woken`), or nothing came for its whole length. */
  | { readonly kind: 'round'; readonly woken: boolean };

/**
 * What the caps ledger's engine (step.ts) asks its workflow to do: signal a campaign. Plain data: the tables compare them by value.
 */
import type { CapAlert } from '../../../contract/caps.ts';
import type { CapsGrant } from '../../../contract/caps-messages.ts';

export type CapsEffect =
  /** Reservation granted to a campaign (micros > 0), or its ask held by `grant.hold` (micros 0). */
  | { readonly kind: 'grant'; readonly campaign: string; readonly grant: CapsGrant }
  | { readonly kind: 'alert'; readonly campaign: string; readonly alert: CapAlert };

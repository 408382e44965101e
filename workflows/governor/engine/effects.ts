/**
 * What the rate governor's engine (step.ts) asks its workflow to do: signal a campaign its share,
 * log, or end (no campaign left for a whole idle wait). Plain data: the tables compare them.
 */
import type { Share } from '../../../contract/governor-messages.ts';

export type GovernorEffect =
  | { readonly kind: 'share'; readonly campaign: string; readonly share: Share }
  | { readonly kind: 'log'; readonly message: string; readonly attrs: Readonly<Record<string, unknown>> }
  | { readonly kind: 'end' };

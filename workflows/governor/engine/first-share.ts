/**
 * A campaign's first run waits for its share before any create (workflows/governor/link.ts waits,
 * at most FIRST_SHARE_WAIT_MS): what it then runs on is decided here, as a table row
 * (test/engine/governor-step.test.ts). A share that came is the campaign's limits, and one below
 * the service's whole rate means others are creating on the key; none in time (no worker polls
 * the governor's queue) and the campaign runs alone on the limits it read, with a warning.
 */
import type { ServiceLimits } from '../../../contract/campaign.ts';
import type { Share } from '../../../contract/governor-messages.ts';

/** How long a campaign's first run waits for its share before creating on the service's limits. */
export const FIRST_SHARE_WAIT_MS = 10_000;

export type FirstShare =
  | { readonly kind: 'shared'; readonly limits: ServiceLimits; readonly joinedOthers: boolean }
  | { readonly kind: 'alone'; readonly warning: string };

export function firstShareOf(read: ServiceLimits, share: Share | null): FirstShare {
  if (share === null)
    return { kind: 'alone', warning: 'rate governor did not answer: creating on the service limits alone' };
  const { createsPerSecond, maxInFlight } = share;
  return {
    kind: 'shared',
    limits: { createsPerSecond, maxInFlight },
    joinedOthers: createsPerSecond < read.createsPerSecond,
  };
}

/**
 * The rate governor's state (docs/engine.md, "One rate limit per API key"): the campaigns on the
 * key with their claims, the service's limits as last read, the share each campaign was last sent,
 * the 429s heard since the last round of shares, and whether anything changed since then. Plain
 * data; what continue-as-new carries of it is `carried` (the input's shape, unchanged).
 */
import type { ServiceLimits } from '../../../contract/campaign.ts';
import type { Claim } from '../../../contract/governor-messages.ts';

export interface Throttle {
  readonly campaign: string;
  readonly retryAfterMs: number;
}

/** What a governor's run carries to the next (GovernorInput.carried). */
export interface CarriedGovernor {
  readonly members: readonly Claim[];
  readonly limits: ServiceLimits | null;
  /** The share each campaign was last sent, so a new run sends only changes. */
  readonly sent: readonly (readonly [string, ServiceLimits])[];
}

export interface GovernorState {
  /** By campaign, in the order they joined. */
  readonly members: readonly Claim[];
  readonly limits: ServiceLimits | null;
  readonly sent: Readonly<Record<string, ServiceLimits>>;
  readonly throttles: readonly Throttle[];
  /** Something changed since the last round: shares are worked out again. */
  readonly changed: boolean;
}

/** A run's state: new, or from what the last run carried (a new run checks its shares once). */
export function openGovernor(carried?: CarriedGovernor): GovernorState {
  return {
    members: carried?.members ?? [],
    limits: carried?.limits ?? null,
    sent: Object.fromEntries(carried?.sent ?? []),
    throttles: [],
    changed: true,
  };
}

export function carry(s: GovernorState): CarriedGovernor {
  return { members: s.members, limits: s.limits, sent: Object.entries(s.sent) };
}

/** Whether the loop has a round of shares to work out now. */
export function due(s: GovernorState): boolean {
  return s.changed || s.throttles.length > 0;
}

export function sameLimits(a: ServiceLimits, b: ServiceLimits): boolean {
  return a.createsPerSecond === b.createsPerSecond && a.maxInFlight === b.maxInFlight;
}

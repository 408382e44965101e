/**
 * The rate governor's one router (docs/engine.md, "One rate limit per API key"): an event in, the
 * next state and what to send. Pure (no Temporal, no Node): every decision is a row of
 * test/engine/governor-step.test.ts. Messages only change the state; a `round` (the loop's wait
 * ended) works the shares out (shares.ts) and sends each campaign what changed, and everyone but a
 * campaign that met a 429 the pause it asks for.
 */
import type { ServiceLimits } from '../../../contract/campaign.ts';
import type { GovernorEffect } from './effects.ts';
import type { GovernorEvent } from './events.ts';
import { sharesOf } from './shares.ts';
import { type GovernorState, sameLimits } from './state.ts';

export interface Stepped {
  readonly state: GovernorState;
  readonly effects: GovernorEffect[];
}

export function step(s: GovernorState, event: GovernorEvent): Stepped {
  switch (event.kind) {
    case 'join': {
      const members = s.members.filter((c) => c.campaign !== event.claim.campaign);
      const at = s.members.findIndex((c) => c.campaign === event.claim.campaign);
      // A campaign joining again keeps its place (the order it first joined in).
      if (at >= 0) members.splice(at, 0, event.claim);
      else members.push(event.claim);
      return quiet({ ...s, members, changed: true });
    }
    case 'leave':
    case 'gone': {
      const { [event.campaign]: _, ...sent } = s.sent;
      const member = s.members.some((c) => c.campaign === event.campaign);
      const members = s.members.filter((c) => c.campaign !== event.campaign);
      return quiet({ ...s, members, sent, changed: s.changed || member || event.kind === 'gone' });
    }
    case 'limits': {
      if (s.limits && sameLimits(s.limits, event.limits)) return quiet(s);
      const effects: GovernorEffect[] = s.limits
        ? [
            {
              kind: 'log',
              message: 'service limits changed',
              attrs: { before: s.limits, after: event.limits },
            },
          ]
        : [];
      return { state: { ...s, limits: event.limits, changed: true }, effects };
    }
    case 'need': {
      if (!s.members.some((c) => c.campaign === event.campaign)) return quiet(s);
      const members = s.members.map((c) =>
        c.campaign === event.campaign ? { ...c, perSecond: event.perSecond } : c,
      );
      return quiet({ ...s, members, changed: true });
    }
    case 'throttled':
      return quiet({ ...s, throttles: [...s.throttles, event.throttle] });
    case 'round':
      return round(s, event.woken);
  }
}

function quiet(state: GovernorState): Stepped {
  return { state, effects: [] };
}

function round(s: GovernorState, woken: boolean): Stepped {
  if (!woken && s.members.length === 0) return { state: s, effects: [{ kind: 'end' }] };
  // A wait that ran its length is the refresh: every share goes out again, so a campaign that
  // ended without leaving is found gone and its share goes back.
  const before = woken ? s.sent : {};
  const shares = s.limits ? sharesOf(s.limits, s.members) : new Map<string, ServiceLimits>();
  const sent: Record<string, ServiceLimits> = { ...before };
  const effects: GovernorEffect[] = [];
  for (const [campaign, share] of shares) {
    // Everyone but the campaign that met the 429 (it paused itself) holds as long as it was told.
    const others = s.throttles.filter((t) => t.campaign !== campaign).map((t) => t.retryAfterMs);
    const pauseMs = Math.max(0, ...others);
    const last = sent[campaign];
    if (pauseMs === 0 && last && sameLimits(last, share)) continue;
    sent[campaign] = share;
    effects.push({ kind: 'share', campaign, share: { ...share, pauseMs } });
  }
  return { state: { ...s, sent, throttles: [], changed: false }, effects };
}

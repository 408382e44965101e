/**
 * The rate governor: one long-lived workflow per API key (its id names the key's fingerprint,
 * never the key) that splits the service's limits between every campaign on the key
 * (docs/engine.md, "One rate limit per API key"). It grants shares, not tokens: each campaign
 * paces its own creates to its share (workflows/pacer.ts), so a create costs the governor
 * nothing; the governor speaks only when a campaign joins or leaves, the limits change, or a
 * campaign meets a 429. It runs no activity, so it needs nothing but a worker polling its queue.
 */
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ServiceLimits } from '../../contract/campaign.ts';
import {
  type Claim,
  joinSignal,
  leaveSignal,
  limitsSignal,
  needSignal,
  type Share,
  shareSignal,
  throttledSignal,
} from '../../contract/governor-messages.ts';
import { messageOf } from '../runtime/failure-of.ts';
import { sharesOf } from './shares.ts';

/** With no campaign left, the governor ends after this long (a later campaign starts a new one). */
export const IDLE_END_MS = 60_000;
/**
 * With nothing new for this long, every share is sent again: a campaign that ended without
 * leaving (terminated, timed out) is found gone that way and its share goes back.
 */
export const REFRESH_MS = 60_000;
/** Continue-as-new well before Temporal's limits: the state it carries is a few lines per campaign. */
const MAX_EVENTS = 5_000;

export interface GovernorInput {
  /** The API key's fingerprint (worker/governor.ts): names the key without revealing it. */
  readonly key: string;
  readonly carried?: {
    readonly members: readonly Claim[];
    readonly limits: ServiceLimits | null;
    /** The share each campaign was last sent, so a new run sends only changes. */
    readonly sent: readonly (readonly [string, ServiceLimits])[];
  };
}

interface Throttle {
  readonly campaign: string;
  readonly retryAfterMs: number;
}

export async function governorWorkflow(input: GovernorInput): Promise<void> {
  const members = new Map((input.carried?.members ?? []).map((c) => [c.campaign, c]));
  const sent = new Map(input.carried?.sent ?? []);
  let limits = input.carried?.limits ?? null;
  let throttles: Throttle[] = [];
  let changed = true; // a new run checks its carried shares once

  setHandler(joinSignal, (claim) => {
    members.set(claim.campaign, claim);
    changed = true;
  });
  setHandler(leaveSignal, ({ campaign }) => {
    sent.delete(campaign);
    changed = members.delete(campaign) || changed;
  });
  setHandler(limitsSignal, ({ limits: read }) => {
    if (limits && sameLimits(limits, read)) return;
    if (limits) log.info('service limits changed', { before: limits, after: read });
    limits = read;
    changed = true;
  });
  setHandler(needSignal, ({ campaign, perSecond }) => {
    const member = members.get(campaign);
    if (!member) return;
    members.set(campaign, { ...member, perSecond });
    changed = true;
  });
  setHandler(throttledSignal, (throttle) => {
    throttles.push(throttle);
  });

  /** Signals a campaign its share; a campaign that is gone (ended, terminated) is dropped. */
  async function send(campaign: string, share: Share): Promise<void> {
    try {
      await getExternalWorkflowHandle(campaign).signal(shareSignal, share);
    } catch (error) {
      log.info('campaign gone: its share goes back', { campaign, reason: messageOf(error) });
      members.delete(campaign);
      sent.delete(campaign);
      changed = true;
    }
  }

  for (;;) {
    const due = () => changed || throttles.length > 0;
    const woken = await condition(due, members.size === 0 ? IDLE_END_MS : REFRESH_MS);
    if (!woken && members.size === 0) return;
    if (!woken) sent.clear(); // the refresh: every share goes out again
    changed = false;
    const held = throttles;
    throttles = [];
    const shares = limits ? sharesOf(limits, [...members.values()]) : new Map<string, ServiceLimits>();
    const sends: Promise<void>[] = [];
    for (const [campaign, share] of shares) {
      // Everyone but the campaign that met the 429 (it paused itself) holds as long as it was told.
      const pauseMs = Math.max(0, ...held.filter((t) => t.campaign !== campaign).map((t) => t.retryAfterMs));
      const last = sent.get(campaign);
      if (pauseMs === 0 && last && sameLimits(last, share)) continue;
      sent.set(campaign, share);
      sends.push(send(campaign, { ...share, pauseMs }));
    }
    await Promise.all(sends);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= MAX_EVENTS) {
      await continueAsNew<typeof governorWorkflow>({
        key: input.key,
        carried: { members: [...members.values()], limits, sent: [...sent] },
      });
    }
  }
}

function sameLimits(a: ServiceLimits, b: ServiceLimits): boolean {
  return a.createsPerSecond === b.createsPerSecond && a.maxInFlight === b.maxInFlight;
}

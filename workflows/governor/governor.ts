/**
 * The rate governor: one long-lived workflow per API key (its id names the key's fingerprint,
 * never the key) that splits the service's limits between every campaign on the key
 * (docs/engine.md, "One rate limit per API key"). It grants shares, not tokens: each campaign
 * paces its own creates to its share (workflows/pacer.ts), so a create costs the governor
 * nothing; the governor speaks only when a campaign joins or leaves, the limits change, or a
 * campaign meets a 429. It runs no activity, so it needs nothing but a worker polling its queue.
 * A thin runtime over its engine (engine/step.ts), which decides everything: signals and the end
 * of its wait become events, shares become signals.
 */
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  joinSignal,
  leaveSignal,
  limitsSignal,
  needSignal,
  type Share,
  shareSignal,
  throttledSignal,
} from '../../contract/governor-messages.ts';
import { messageOf } from '../failure-of.ts';
import type { GovernorEffect } from './engine/effects.ts';
import type { GovernorEvent } from './engine/events.ts';
import { type CarriedGovernor, carry, due, openGovernor } from './engine/state.ts';
import { step } from './engine/step.ts';

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
  readonly carried?: CarriedGovernor;
}

export async function governorWorkflow(input: GovernorInput): Promise<void> {
  let state = openGovernor(input.carried);
  /** Steps an event; the shares and logs it calls for are returned, the rest done here. */
  const take = (event: GovernorEvent): GovernorEffect[] => {
    const next = step(state, event);
    state = next.state;
    for (const effect of next.effects) if (effect.kind === 'log') log.info(effect.message, effect.attrs);
    return next.effects;
  };

  setHandler(joinSignal, (claim) => void take({ kind: 'join', claim }));
  setHandler(leaveSignal, ({ campaign }) => void take({ kind: 'leave', campaign }));
  setHandler(limitsSignal, ({ limits }) => void take({ kind: 'limits', limits }));
  setHandler(needSignal, ({ campaign, perSecond }) => void take({ kind: 'need', campaign, perSecond }));
  setHandler(throttledSignal, (throttle) => void take({ kind: 'throttled', throttle }));

  /** Signals a campaign its share; a campaign that is gone (ended, terminated) is dropped. */
  async function send(campaign: string, share: Share): Promise<void> {
    try {
      await getExternalWorkflowHandle(campaign).signal(shareSignal, share);
    } catch (error) {
      log.info('campaign gone: its share goes back', { campaign, reason: messageOf(error) });
      take({ kind: 'gone', campaign });
    }
  }

  for (;;) {
    const woken = await condition(() => due(state), state.members.length === 0 ? IDLE_END_MS : REFRESH_MS);
    const effects = take({ kind: 'round', woken });
    if (effects.some((effect) => effect.kind === 'end')) return;
    await Promise.all(effects.flatMap((e) => (e.kind === 'share' ? [send(e.campaign, e.share)] : [])));
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= MAX_EVENTS) {
      await continueAsNew<typeof governorWorkflow>({ key: input.key, carried: carry(state) });
    }
  }
}

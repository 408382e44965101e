/**
 * A campaign's side of the rate governor (governor.ts), as messages: what the reducer tells the
 * governor (reducer/effects.ts, GovernorNote) is signalled here, and each share the governor
 * signals is handed to the reducer (reducer/governor.ts decides what it changes). The governor is
 * best effort for liveness: a campaign that hears nothing from it runs on the service's own
 * limits, as campaigns did before it, with a warning.
 */
import {
  condition,
  getExternalWorkflowHandle,
  log,
  type SignalDefinition,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { CampaignInput, ServiceLimits } from '../../contract/campaign.ts';
import {
  governorWorkflowId,
  leaveSignal,
  limitsSignal,
  needSignal,
  type Share,
  shareSignal,
  throttledSignal,
} from '../../contract/governor-messages.ts';
import type { GovernorNote } from '../engine/effects.ts';
import { messageOf } from '../failure-of.ts';
import { FIRST_SHARE_WAIT_MS, firstShareOf } from './engine/first-share.ts';

/** The campaign's link to its key's governor; null when its client started none. */
export function governorOf(input: CampaignInput): GovernorLink | null {
  return input.governor !== undefined
    ? new GovernorLink(input.governor.key, workflowInfo().workflowId)
    : null;
}

export class GovernorLink {
  private share: Share | null = null;
  private onShare: ((share: Share) => void) | null = null;

  private readonly key: string;
  /** This campaign's workflow id, as the governor knows it. */
  private readonly campaign: string;

  constructor(key: string, campaign: string) {
    this.key = key;
    this.campaign = campaign;

    setHandler(shareSignal, (share) => {
      this.share = share;
      this.onShare?.(share);
    });
  }

  /**
   * Reports the limits the campaign read at its start and waits for its share of them; null when
   * no share came in time (no worker polls the governor's queue): the campaign then runs alone.
   * `joinedOthers`: the share is less than the service's whole rate, so others are creating.
   */
  async firstShare(limits: ServiceLimits): Promise<{ limits: ServiceLimits; joinedOthers: boolean } | null> {
    void this.tell({ kind: 'limits', limits });
    await condition(() => this.share !== null, FIRST_SHARE_WAIT_MS);
    const first = firstShareOf(limits, this.share);
    if (first.kind === 'shared') return { limits: first.limits, joinedOthers: first.joinedOthers };
    log.warn(first.warning, { governor: governorWorkflowId(this.key) });
    return null;
  }

  /** Every share from now on goes to `take` (the reducer's `share` event). */
  follow(take: (share: Share) => void): void {
    this.onShare = take;
  }

  tell(note: GovernorNote): Promise<void> {
    const campaign = this.campaign;
    switch (note.kind) {
      case 'limits':
        return this.send(limitsSignal, { campaign, limits: note.limits });
      case 'need':
        return this.send(needSignal, { campaign, perSecond: note.perSecond });
      case 'throttled':
        return this.send(throttledSignal, { campaign, retryAfterMs: note.retryAfterMs });
      case 'leave':
        return this.send(leaveSignal, { campaign });
    }
  }

  private async send<T>(signal: SignalDefinition<[T]>, arg: T): Promise<void> {
    try {
      await getExternalWorkflowHandle(governorWorkflowId(this.key)).signal(signal, arg);
    } catch (error) {
      log.warn('rate governor unreachable', {
        governor: governorWorkflowId(this.key),
        reason: messageOf(error),
      });
    }
  }
}

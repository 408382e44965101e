/**
 * A campaign's side of the rate governor (governor.ts): it tells the governor what it learns of
 * the service's limits (each read, each 429) and that it ended, and takes the share the governor
 * signals as its own limits. The governor is best effort for liveness: a campaign that hears
 * nothing from it runs on the service's own limits, as campaigns did before it, with a warning.
 */
import {
  condition,
  getExternalWorkflowHandle,
  log,
  type SignalDefinition,
  setHandler,
} from '@temporalio/workflow';
import type { ServiceLimits } from '../../contract/campaign.ts';
import { messageOf } from '../failure-of.ts';
import {
  governorWorkflowId,
  leaveSignal,
  limitsSignal,
  type Share,
  shareSignal,
  throttledSignal,
} from './messages.ts';

/** How long a campaign's first run waits for its share before creating on the service's limits. */
export const FIRST_SHARE_WAIT_MS = 10_000;

export class GovernorLink {
  private share: Share | null = null;
  private apply: ((share: Share) => void) | null = null;

  constructor(
    private readonly key: string,
    /** This campaign's workflow id, as the governor knows it. */
    private readonly campaign: string,
  ) {
    setHandler(shareSignal, (share) => {
      this.share = share;
      this.apply?.(share);
    });
  }

  /**
   * Reports the limits the campaign read at its start and waits for its share of them; null when
   * no share came in time (no worker polls the governor's queue): the campaign then runs alone.
   */
  async firstShare(limits: ServiceLimits): Promise<ServiceLimits | null> {
    this.report(limits);
    if (await condition(() => this.share !== null, FIRST_SHARE_WAIT_MS)) {
      const { createsPerSecond, maxInFlight } = this.share ?? limits;
      return { createsPerSecond, maxInFlight };
    }
    log.warn('rate governor did not answer: creating on the service limits alone', {
      governor: governorWorkflowId(this.key),
    });
    return null;
  }

  /** Every share from now on goes to `apply` (the campaign's limits and pacer). */
  follow(apply: (share: Share) => void): void {
    this.apply = apply;
  }

  /** The service's limits as read: the governor shares any change out to every campaign. */
  report(limits: ServiceLimits): void {
    void this.send(limitsSignal, { campaign: this.campaign, limits });
  }

  /** A 429 met: every other campaign on the key holds its creates as long. */
  throttled(retryAfterMs: number): void {
    void this.send(throttledSignal, { campaign: this.campaign, retryAfterMs });
  }

  /** The campaign ended: its share goes to the others at once. */
  leave(): Promise<void> {
    return this.send(leaveSignal, { campaign: this.campaign });
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

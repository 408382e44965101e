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
  patched,
  type SignalDefinition,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { CampaignInput, ServiceLimits } from '../../contract/campaign.ts';
import type { CampaignState } from '../campaign-state.ts';
import type { CampaignClock } from '../clock.ts';
import { messageOf } from '../failure-of.ts';
import type { Pacer } from '../pacer.ts';
import type { RunState } from '../run-state.ts';
import {
  governorWorkflowId,
  leaveSignal,
  limitsSignal,
  needSignal,
  type Share,
  shareSignal,
  throttledSignal,
} from './messages.ts';

/** Histories recorded before the governor send it no signal: the patch keeps them replaying. */
const RATE_GOVERNOR = 'rate-governor';

/** The campaign's link to its key's governor; null when its client started none (or an old history). */
export function governorOf(input: CampaignInput): GovernorLink | null {
  return input.governor !== undefined && patched(RATE_GOVERNOR)
    ? new GovernorLink(input.governor.key, workflowInfo().workflowId, input.concurrency)
    : null;
}

/** Room above the measured need, so the cap never holds back a campaign whose latency varies. */
const NEED_MARGIN = 1.25;
/** The need is reported again only when it moved by more than this part of the last report. */
const NEED_CHANGE = 0.25;

/** How long a campaign's first run waits for its share before creating on the service's limits. */
export const FIRST_SHARE_WAIT_MS = 10_000;

/** What a share moves in the campaign. */
export interface Steered {
  readonly state: CampaignState;
  readonly clock: CampaignClock;
  readonly pacer: Pacer;
  readonly run: RunState;
}

export class GovernorLink {
  private share: Share | null = null;
  private apply: ((share: Share) => void) | null = null;
  /** The first share was less than the service's whole rate: other campaigns are creating. */
  private joinedOthers = false;
  /** The rate need last reported (observeLatency). */
  private reportedNeed: number | null = null;

  private readonly key: string;
  /** This campaign's workflow id, as the governor knows it. */
  private readonly campaign: string;
  /** The campaign's own concurrency: with its latency, the most creates a second it can use. */
  private readonly concurrency: number;

  constructor(key: string, campaign: string, concurrency: number) {
    this.key = key;
    this.campaign = campaign;
    this.concurrency = concurrency;

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
      this.joinedOthers = createsPerSecond < limits.createsPerSecond;
      return { createsPerSecond, maxInFlight };
    }
    log.warn('rate governor did not answer: creating on the service limits alone', {
      governor: governorWorkflowId(this.key),
    });
    return null;
  }

  /** Every share from now on becomes the campaign's limits and its pacer's rate. */
  steer({ state, clock, pacer, run }: Steered): void {
    // The others may have spent the service's one-second burst just now: a newcomer's own burst
    // on top of it would meet 429s, so it starts with an empty bucket (measured: docs/engine.md).
    if (this.joinedOthers) pacer.pauseUntil(clock.now(), clock.now());
    this.apply = ({ pauseMs, ...share }) => {
      state.limits = share;
      pacer.setRate(share.createsPerSecond);
      if (pauseMs > 0) pacer.pauseUntil(clock.now() + pauseMs, clock.now());
      run.changed = true; // wakes the loop: a larger share may let jobs start now
    };
  }

  /** The service's limits as read: the governor shares any change out to every campaign. */
  report(limits: ServiceLimits): void {
    void this.send(limitsSignal, { campaign: this.campaign, limits });
  }

  /**
   * The campaign's mean prediction latency moved: tells the governor the rate it can use, so a
   * window-bound campaign's unused part of the rate goes to the others.
   */
  observeLatency(latencyMs: number | null): void {
    if (latencyMs === null || latencyMs <= 0) return;
    const perSecond = ((this.concurrency * 1000) / latencyMs) * NEED_MARGIN;
    const last = this.reportedNeed;
    if (last !== null && Math.abs(perSecond - last) <= last * NEED_CHANGE) return;
    this.reportedNeed = perSecond;
    void this.send(needSignal, { campaign: this.campaign, perSecond });
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

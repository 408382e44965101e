/**
 * What campaigns and their rate governor say to each other (docs/engine.md, "One rate limit per
 * API key"). Signals both ways: a workflow can signal another but not send it an update, and a
 * signal costs the receiver one history event. Shared by the governor, the campaign and the
 * client that starts both; nothing here names the API key, only its fingerprint.
 */
import { defineSignal } from '@temporalio/workflow';
import type { ServiceLimits } from './campaign.ts';
import { ENGINE } from './engine.ts';

/** A campaign's claim on the key's limits: its weight, and how many in flight it can use at most. */
export interface Claim {
  /** The campaign's workflow id: where its share is signalled. */
  readonly campaign: string;
  /** Relative share (1 unless told otherwise); must be > 0. */
  readonly weight: number;
  /** The campaign's own concurrency: an in-flight share above it would sit unused. */
  readonly wants: number;
  /**
   * The most creates a second it can use (its concurrency over its measured latency, with room),
   * once measured: a rate share above it would sit unused. Absent: no cap.
   */
  readonly perSecond?: number;
  /** Served before lower priorities (spec `priority:`); absent: 0. */
  readonly priority?: number;
}

/** A campaign's part of the key's limits, and how long to hold every create (another's 429). */
export interface Share extends ServiceLimits {
  readonly pauseMs: number;
}

/** Sent by the client that starts a campaign (with signal-with-start, so the governor exists). */
export const joinSignal = defineSignal<[Claim]>('governor-join');
/** The service's limits as a campaign read them: at its start and after every 429. */
export const limitsSignal =
  defineSignal<[{ readonly campaign: string; readonly limits: ServiceLimits }]>('governor-limits');
/** A campaign met a 429: every other campaign on the key holds its creates as long. */
export const throttledSignal =
  defineSignal<[{ readonly campaign: string; readonly retryAfterMs: number }]>('governor-throttled');
/** What the campaign can use of the rate, reported when its measured latency moves (Claim.perSecond). */
export const needSignal =
  defineSignal<[{ readonly campaign: string; readonly perSecond: number }]>('governor-need');
/** The campaign ended: its share goes back to the others at once. */
export const leaveSignal = defineSignal<[{ readonly campaign: string }]>('governor-leave');
/** From the governor to a campaign: its share, whenever it changes. */
export const shareSignal = defineSignal<[Share]>('governor-share');

/** The governor's workflow id: one per key fingerprint, so every campaign on the key finds it. */
export function governorWorkflowId(keyFingerprint: string): string {
  return `mediaflow-governor-e${ENGINE}-${keyFingerprint}`;
}

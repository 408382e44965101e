/**
 * The campaign's side of its key's rate governor, as decisions (docs/engine.md, "One rate limit
 * per API key"): a share signalled becomes the campaign's limits and its pacer's rate, and a
 * measured latency tells the governor the rate the campaign can use, so a window-bound
 * campaign's unused part of the rate goes to the others. The signals are sent by governor/link.ts.
 */
import type { Share } from '../../../contract/governor-messages.ts';
import type { Effect } from '../effects.ts';
import type { Model } from '../model.ts';
import { pauseUntil, setRate } from './pacer.ts';

/** Room above the measured need, so the cap never holds back a campaign whose latency varies. */
const NEED_MARGIN = 1.25;
/** The need is reported again only when it moved by more than this part of the last report. */
const NEED_CHANGE = 0.25;

/** The campaign's mean prediction latency moved: its rate need, when it changed enough to say. */
export function observeLatency({ governed, jobs }: Model): Effect[] {
  const latencyMs = jobs.tally.latencyMs;
  if (!governed || latencyMs === null || latencyMs <= 0) return [];
  const perSecond = ((governed.concurrency * 1000) / latencyMs) * NEED_MARGIN;
  const last = governed.reportedNeed;
  if (last !== null && Math.abs(perSecond - last) <= last * NEED_CHANGE) return [];
  governed.reportedNeed = perSecond;
  return [{ kind: 'tell-governor', note: { kind: 'need', perSecond } }];
}

/** A share from the governor: the campaign's limits from now on, and a pause when another met a 429. */
export function shareTaken({ jobs, pacer, clock }: Model, { pauseMs, ...share }: Share): Effect[] {
  jobs.limits = share;
  setRate(pacer, share.createsPerSecond, clock.at);
  if (pauseMs > 0) pauseUntil(pacer, clock.at + pauseMs, clock.at);
  return [];
}

/** The campaign leaves its key's governor (it completed, or was canceled): its share goes to the others. */
export function leaving({ governed }: Model): Effect[] {
  return governed ? [{ kind: 'tell-governor', note: { kind: 'leave' } }] : [];
}

/**
 * The run's first share was less than the whole key: the others may have spent the service's
 * one-second burst just now, and a newcomer's own burst on top of it would meet 429s, so it
 * starts with an empty bucket (docs/engine.md, "One rate limit per API key").
 */
export function joinedOthers({ pacer, clock }: Model): void {
  pauseUntil(pacer, clock.at, clock.at);
}

/**
 * What `run`, `status` and the live view say while a campaign pauses on its own because the
 * service is down (progress `paused`, workflows/engine/pacing/outage.ts): the reason, since when, and when it
 * tries again. It resumes by itself: the user need do nothing, so the line says so. The same
 * place says when a spend cap holds the campaign (progress `cap_reached`, docs/caps.md).
 */
import type { CampaignProgress } from '../contract/campaign.ts';
import { duration } from './live-frame.ts';

const clockTime = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

/** A spend cap holds the campaign (docs/caps.md): paused, never failed. */
const capState = (cap: string) => `cap_reached: ${cap}`;
const CAP_RESUMES =
  'paused: it resumes by itself when the cap is raised (mediaflow caps set) or its period turns';

/** The whole line for `status`; null when not paused. `now`: the reader's clock, ms. */
export function pauseLine(p: CampaignProgress, now: number): string | null {
  if (p.outcome !== 'running') return null;
  if (!p.paused) return p.cap_reached ? `${capState(p.cap_reached)}; ${CAP_RESUMES}` : null;
  const { reason, since, until } = p.paused;
  const next = until > now ? `${clockTime(until)} (in ${duration(until - now)})` : 'now';
  return (
    `paused: the service is unavailable since ${clockTime(since)} (${reason}); ` +
    `next try at ${next}; it resumes by itself, nothing fails meanwhile`
  );
}

/** A few words for a one-line view (the live frame's footer, `run`'s plain lines). */
export function pauseState(p: CampaignProgress, now: number): string | null {
  if (p.outcome !== 'running') return null;
  if (!p.paused) return p.cap_reached ? capState(p.cap_reached) : null;
  const left = p.paused.until - now;
  return `paused: service unavailable, next try ${left > 0 ? `in ${duration(left)}` : 'now'}`;
}

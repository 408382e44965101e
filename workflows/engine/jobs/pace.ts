/**
 * How fast the campaign works and how long the rest will take: the one ETA that `run`'s frame,
 * `status` and every other view show (they count it down from the snapshot, cli/live-frame.ts).
 *
 * Jobs are weighed by their step's measured latency: a still and a clip differ a hundredfold, and
 * counting jobs alike would say "2s left" once the fast stills had ended with every clip still to
 * make. The rate is measured over the time some prediction was at the service, so the hours a
 * campaign waited on a reviewer or on no worker do not count as slowness. Between two ends the
 * estimate counts down instead of being measured again (which would make it climb while jobs
 * are in flight), and it says nothing once the count ran out with jobs still to end.
 */
import type { CarriedPace, StepCounts } from '../../../contract/campaign.ts';
import { endedOf } from '../../../contract/ended-jobs.ts';

/** Plain data (the model is one JSON object), carried across continue-as-new. */
export interface PaceState {
  /** Time, ms, during which the campaign had a prediction at the service, up to `endedAt`. */
  busyMs: number;
  /** Campaign time the last prediction ended; null until one has. */
  endedAt: number | null;
  /** Predictions that ended per step (retakes and failures too: each took the service's time). */
  readonly worked: number[];
}

export function newPace(steps: number, carried?: CarriedPace): PaceState {
  return {
    busyMs: carried?.busyMs ?? 0,
    endedAt: carried?.endedAt ?? null,
    worked: Array.from({ length: steps }, (_, step) => carried?.worked[step] ?? 0),
  };
}

/**
 * A prediction of `step`, at the service since `createdAt` (0: not known), ended at `now`: the
 * time since the last end, or since it was created if that is later, was busy.
 */
export function worked(p: PaceState, step: number, createdAt: number, now: number): void {
  const from = createdAt > 0 ? createdAt : now;
  const since = p.endedAt === null ? from : Math.max(p.endedAt, from);
  p.busyMs += Math.max(0, now - since);
  p.endedAt = Math.max(p.endedAt ?? now, now);
  p.worked[step] = (p.worked[step] ?? 0) + 1;
}

/** What the ETA reads of the campaign besides its pace. */
export interface Work {
  readonly steps: readonly { readonly jobCount: number }[];
  readonly counts: readonly StepCounts[];
  /** Each step's measured latency (TallyState.stepLatencyMs): its weight. */
  readonly latencyMs: readonly (number | null)[];
  /** The predictions at the service (slots.ts, atService). */
  readonly atService: readonly { readonly step: number; readonly createdAt: number }[];
}

/**
 * Milliseconds left at `now`, or null while unknown: before a prediction of every step with jobs
 * left has ended, and once the estimate ran out with jobs still to end. As of the last end, the
 * predictions then at the service count as done for as long as they had been there: ten clips
 * started together and one ended is most of ten clips' work done, not one tenth of it.
 */
export function etaMs(p: PaceState, work: Work, now: number): number | null {
  const { endedAt } = p;
  if (endedAt === null || p.busyMs <= 0) return null;
  let done = 0;
  let left = 0;
  let slowest = 0;
  for (const [step, { jobCount }] of work.steps.entries()) {
    const remaining = Math.max(0, jobCount - endedOf(work.counts[step]!));
    const weight = work.latencyMs[step] ?? null;
    if (weight === null) {
      if (remaining > 0) return null;
      continue;
    }
    done += (p.worked[step] ?? 0) * weight;
    left += remaining * weight;
    if (remaining > 0) slowest = Math.max(slowest, weight);
  }
  for (const { step, createdAt } of work.atService) {
    const weight = work.latencyMs[step] ?? 0;
    const under = Math.min(weight, Math.max(0, endedAt - createdAt));
    done += under;
    left -= under;
  }
  if (left <= 0 || done <= 0) return null;
  // How many predictions the service works on at once, as measured; the last ones end spread
  // over about one latency of the slowest step left, not all at once at the even share's end.
  const parallel = done / p.busyMs;
  const spread = (1 - 1 / Math.max(1, parallel)) * (slowest / 2);
  const eta = left / parallel + spread - (now - endedAt);
  return eta > 0 ? Math.round(eta) : null;
}

/**
 * The service's rate limits as the campaign lives with them (docs/engine.md, "Pacing and rate
 * limits"): limits read set the pacer's rate (or go to the key's governor, which shares them out),
 * and a 429 pauses creates for its Retry-After and marks the limits stale, so the loop reads them
 * again (decide.ts, LIMITS_REREAD_MS) and names no heir meanwhile.
 */
import type { ServiceLimits } from '../../../contract/campaign.ts';
import type { Effect } from '../effects.ts';
import type { Model } from '../model.ts';
import { pauseUntil, setRate } from './pacer.ts';
import { markLimitsRead, markLimitsStale } from './run-state.ts';

/** The service's limits as read: the governor shares them out; without one they are the campaign's. */
export function limitsRead(m: Model, read: ServiceLimits): Effect[] {
  const { jobs, run, pacer, clock } = m;
  markLimitsRead(run, clock.at);
  // Shared out by the governor, the limits come back as this campaign's share.
  if (m.governed) return [{ kind: 'tell-governor', note: { kind: 'limits', limits: read } }];
  const before = jobs.limits;
  jobs.limits = read;
  setRate(pacer, read.createsPerSecond, clock.at);
  if (before.createsPerSecond === read.createsPerSecond && before.maxInFlight === read.maxInFlight) return [];
  return [{ kind: 'log', level: 'info', message: 'service limits changed', attrs: { before, after: read } }];
}

/**
 * A create met a 429 (its job is put back by jobs/reports.ts): creates pause for `afterMs`, and
 * the limits are read again. Said once per read of the limits, like the governor's note.
 */
export function rateLimited(m: Model, afterMs: number): Effect[] {
  const { run, pacer, clock } = m;
  const effects: Effect[] = run.limitsStale
    ? []
    : [
        { kind: 'log', level: 'warn', message: 'rate limited: creates pause', attrs: { forMs: afterMs } },
        ...(m.governed
          ? [{ kind: 'tell-governor', note: { kind: 'throttled', retryAfterMs: afterMs } } as const]
          : []),
      ];
  pauseUntil(pacer, clock.at + afterMs, clock.at);
  markLimitsStale(run);
  return effects;
}

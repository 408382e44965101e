/**
 * A service outage as `step` takes it (failure kind `service_unavailable`, outage.ts): creates
 * pause (the job the service could not take is put back by jobs/reports.ts), and the first
 * prediction created ends the pause. Said in the log once per pause, and in the progress (`paused`).
 */
import type { CreateOutcome } from '../../../contract/activities.ts';
import type { Effect } from '../effects.ts';
import type { Model } from '../model.ts';
import { observe } from './clock.ts';
import { LIMITS_REREAD_MS } from './decide.ts';
import { back, down, type OutageNow, settled } from './outage.ts';
import { pauseUntil } from './pacer.ts';

type Unavailable = Extract<CreateOutcome, { kind: 'unavailable' }>;

/** A create the service could not take: the outage starts, or goes on. */
export function serviceDown(m: Model, outcome: Unavailable): Effect[] {
  observe(m.clock, outcome.at);
  return paused(m, down(m.run.outage, outcome.i, outcome.reason, outcome.since, m.clock.at));
}

/**
 * The limits could not be read (a read of the loop, which waits for it): creates pause, and the
 * next read is due when the pause ends (decide.ts reads stale limits LIMITS_REREAD_MS after the last).
 */
export function limitsUnavailable(m: Model, reason: string): Effect[] {
  const pause = down(m.run.outage, null, reason, null, m.clock.at);
  const until = m.run.outage.current?.until ?? m.clock.at;
  m.run.limitsReadAt = until - LIMITS_REREAD_MS;
  return paused(m, pause);
}

function paused(m: Model, pause: OutageNow | null): Effect[] {
  const { clock, pacer } = m;
  if (pause === null) return [];
  pauseUntil(pacer, pause.until, clock.at);
  return [
    {
      kind: 'log',
      level: 'warn',
      message: 'service unavailable: creates pause',
      attrs: { reason: pause.reason, forMs: pause.until - clock.at, pauses: pause.pauses },
    },
  ];
}

/** A create the service answered: settles a job sent back, and a prediction created ends an outage. */
export function serviceAnswered(m: Model, outcome: Exclude<CreateOutcome, Unavailable>): Effect[] {
  const { outage } = m.run;
  settled(outage, outcome.i);
  if (outcome.kind !== 'created') return [];
  const ended = back(outage);
  if (ended === null) return [];
  return [
    {
      kind: 'log',
      level: 'info',
      message: 'service back: creates resume',
      attrs: { downForMs: Math.max(0, m.clock.at - ended.since), pauses: ended.pauses },
    },
  ];
}

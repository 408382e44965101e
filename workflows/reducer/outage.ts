/**
 * The reducer's cases of a service outage (failure kind `service_unavailable`, workflows/outage.ts):
 * a job the service could not take goes back to the queue and creates pause; the first prediction
 * created ends the pause. Said in the log once per pause, and in the progress (`paused`).
 */
import type { CreateOutcome } from '../../contract/activities.ts';
import * as Clock from '../clock.ts';
import { LIMITS_REREAD_MS } from '../decide.ts';
import * as Moves from '../job-moves.ts';
import type { OutageNow } from '../outage.ts';
import * as Outage from '../outage.ts';
import * as Pacer from '../pacer.ts';
import type { Effect } from './effects.ts';
import type { Model } from './model.ts';

type Unavailable = Extract<CreateOutcome, { kind: 'unavailable' }>;

export function serviceDown(m: Model, outcome: Unavailable): Effect[] {
  Clock.observe(m.clock, outcome.at);
  Moves.onRetry(m.jobs, outcome.i);
  return paused(m, Outage.down(m.run.outage, outcome.i, outcome.reason, outcome.since, m.clock.at));
}

/**
 * The limits could not be read (a read of the loop, which waits for it): creates pause, and the
 * next read is due when the pause ends (decide.ts reads stale limits LIMITS_REREAD_MS after the last).
 */
export function limitsUnavailable(m: Model, reason: string): Effect[] {
  const pause = Outage.down(m.run.outage, null, reason, null, m.clock.at);
  const until = m.run.outage.current?.until ?? m.clock.at;
  m.run.limitsReadAt = until - LIMITS_REREAD_MS;
  return paused(m, pause);
}

function paused(m: Model, pause: OutageNow | null): Effect[] {
  const { clock, pacer } = m;
  if (pause === null) return [];
  Pacer.pauseUntil(pacer, pause.until, clock.at);
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
  Outage.settled(outage, outcome.i);
  if (outcome.kind !== 'created') return [];
  const ended = Outage.back(outage);
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

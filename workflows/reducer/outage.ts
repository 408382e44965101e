/**
 * The reducer's cases of a service outage (failure kind `service_unavailable`, workflows/outage.ts):
 * a job the service could not take goes back to the queue and creates pause; the first prediction
 * created ends the pause. Said in the log once per pause, and in the progress (`paused`).
 */
import type { CreateOutcome } from '../../contract/activities.ts';
import { LIMITS_REREAD_MS } from '../decide.ts';
import type { OutageNow } from '../outage.ts';
import type { Effect } from './effects.ts';
import type { Model } from './model.ts';

type Unavailable = Extract<CreateOutcome, { kind: 'unavailable' }>;

export function serviceDown(m: Model, outcome: Unavailable): Effect[] {
  m.clock.observe(outcome.at);
  m.jobs.onRetry(outcome.i);
  return paused(m, m.run.outage.down(outcome.i, outcome.reason, outcome.since, m.clock.now()));
}

/**
 * The limits could not be read (a read of the loop, which waits for it): creates pause, and the
 * next read is due when the pause ends (decide.ts reads stale limits LIMITS_REREAD_MS after the last).
 */
export function limitsUnavailable(m: Model, reason: string): Effect[] {
  const pause = m.run.outage.down(null, reason, null, m.clock.now());
  const until = m.run.outage.current?.until ?? m.clock.now();
  m.run.limitsReadAt = until - LIMITS_REREAD_MS;
  return paused(m, pause);
}

function paused(m: Model, pause: OutageNow | null): Effect[] {
  const { clock, pacer } = m;
  if (pause === null) return [];
  pacer.pauseUntil(pause.until, clock.now());
  return [
    {
      kind: 'log',
      level: 'warn',
      message: 'service unavailable: creates pause',
      attrs: { reason: pause.reason, forMs: pause.until - clock.now(), pauses: pause.pauses },
    },
  ];
}

/** A create the service answered: settles a job sent back, and a prediction created ends an outage. */
export function serviceAnswered(m: Model, outcome: Exclude<CreateOutcome, Unavailable>): Effect[] {
  const { outage } = m.run;
  outage.settled(outcome.i);
  if (outcome.kind !== 'created') return [];
  const ended = outage.back();
  if (ended === null) return [];
  return [
    {
      kind: 'log',
      level: 'info',
      message: 'service back: creates resume',
      attrs: { downForMs: Math.max(0, m.clock.now() - ended.since), pauses: ended.pauses },
    },
  ];
}

/**
 * The reducer's cases of a service outage (failure kind `service_unavailable`, workflows/outage.ts):
 * a job the service could not take goes back to the queue and creates pause; the first prediction
 * created ends the pause. Said in the log once per pause, and in the progress (`paused`).
 */
import type { CreateOutcome } from '../../contract/activities.ts';
import type { Effect } from './effects.ts';
import type { Model } from './model.ts';

type Unavailable = Extract<CreateOutcome, { kind: 'unavailable' }>;

export function serviceDown(m: Model, outcome: Unavailable): Effect[] {
  const { jobs, run, clock, pacer } = m;
  clock.observe(outcome.at);
  jobs.onRetry(outcome.i);
  const pause = run.outage.down(outcome.i, outcome.reason, outcome.since, clock.now());
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

/**
 * The campaign's reducer (ARCHITECTURE.md, decision 15): `step(model, event)` takes one event
 * (an activity's result, a signal, an update, a timer, the loop's tick) and makes every decision
 * it calls for, returning the effects for the executor (workflows/campaign.ts) to carry out. No
 * Temporal API, no clock but the campaign clock in the model, no I/O: tested as tables
 * (test/engine/step.test.ts) without a server.
 *
 * The model is changed in place: it holds the window, slots and gates of up to 100,000 jobs, and
 * copying them on every event would cost each event as much as the campaign's size.
 */
import * as Jobs from '../campaign-state.ts';
import * as Clock from '../clock.ts';
import * as Moves from '../job-moves.ts';
import * as Pacer from '../pacer.ts';
import { resumedBatches } from './batches.ts';
import { capAlerted, capsGranted, withCaps } from './caps.ts';
import type { Effect } from './effects.ts';
import type { CampaignEvent } from './events.ts';
import { shareTaken } from './governor.ts';
import { batchFinished, batchLost, created, createLost } from './jobs.ts';
import type { Model } from './model.ts';
import { jobsLoaded, limitsRead, next, publishing, pulsed, readLost } from './next.ts';
import { noticed, notified, rearm } from './notify.ts';
import { limitsUnavailable } from './outage.ts';
import { released, reviewed } from './reviews.ts';

export function step(m: Model, event: CampaignEvent): Effect[] {
  // Spend caps (reducer/caps.ts) follow every event: asks, spend reports, the reservation given back.
  return withCaps(m, route(m, event), event.kind === 'canceled');
}

function route(m: Model, event: CampaignEvent): Effect[] {
  switch (event.kind) {
    case 'tick':
      return noticed(m, next(m, event));
    case 'started':
      // The others may have spent the service's one-second burst just now: a newcomer's own burst
      // on top of it would meet 429s, so it starts with an empty bucket (measured: docs/engine.md).
      if (event.joinedOthers) Pacer.pauseUntil(m.pacer, m.clock.at, m.clock.at);
      // What the last run handed over is finished in batches: one activity per step, not one
      // per prediction (up to C of them at every roll-over).
      return resumedBatches(m, Jobs.inFlight(m.jobs));
    case 'slept':
      Clock.slept(m.clock, event.from, event.ms);
      return [];
    case 'pulse':
      return pulsed(m, event.from, event.ms);
    case 'created':
      return reported(m, created(m, event.outcomes));
    case 'create-lost':
      return reported(m, createLost(m, event.batch, event.lost));
    case 'batch-finished':
      return reported(m, batchFinished(m, event.flights, event.results, event.resumed));
    case 'batch-lost':
      return reported(m, batchLost(m, event.flights, event.lost));
    case 'limits-read':
      return limitsRead(m, event.limits);
    case 'jobs-loaded':
      return jobsLoaded(m, event.jobs);
    case 'released':
      return released(m, event.span, event.jobs);
    case 'read-unavailable':
      // Counted as a report: the pause (and its next try) is news for the memo.
      return reported(m, limitsUnavailable(m, event.reason));
    case 'read-lost':
      return readLost(m, event.stop, event.message);
    case 'review': {
      const effects = reviewed(m, event.decisions, event.at);
      rearm(m);
      return effects;
    }
    case 'notified':
      return notified(m, event.failure);
    case 'share':
      return shareTaken(m, event.share);
    case 'caps-grant':
      return capsGranted(m, event.grant);
    case 'cap-alert':
      return capAlerted(m, event.alert);
    case 'cancel-requested':
      m.run.cancelled = true;
      return [];
    case 'canceled':
      Moves.cancelAll(m.jobs);
      return [
        ...(m.governed ? [{ kind: 'tell-governor', note: { kind: 'leave' } } as const] : []),
        ...publishing(m, null, true),
        { kind: 'log', level: 'info', message: 'campaign canceled' },
      ];
  }
}

/** An activity reported: the memo's progress is one report behind. */
function reported(m: Model, effects: Effect[]): Effect[] {
  m.run.reports++;
  return effects;
}

/**
 * The campaign's engine (ARCHITECTURE.md, decision 15): `step(model, event)` takes one event
 * (an activity's result, a signal, an update, a timer, the loop's tick) and makes every decision
 * it calls for, returning the effects for the runtime (workflows/runtime/) to carry out. No
 * Temporal API, no clock but the campaign clock in the model, no I/O: tested as tables
 * (test/engine/step.test.ts) without a server.
 *
 * The one router, and the one place that composes the concerns: each event goes to the handler
 * of the concern it belongs to (jobs/, money/, reviews/, pacing/, notices/), and what one event
 * moves in several concerns is put together here.
 *
 * The model is changed in place: it holds the window, slots and gates of a whole campaign, and
 * copying them on every event would cost each event as much as the campaign's size.
 */
import type { ReviewAck, ReviewBatch } from '../../contract/review.ts';
import { capAlerted, capsGranted, withCaps } from './caps.ts';
import type { Effect } from './effects.ts';
import type { CampaignEvent } from './events.ts';
import { resumedBatches } from './jobs/batches.ts';
import { admit, released } from './jobs/gated-window.ts';
import { standing } from './jobs/occupancy.ts';
import { batchFinished, batchLost, created, createLost, readLost } from './jobs/reports.ts';
import { inFlight } from './jobs/slots.ts';
import { cancelAll } from './jobs/transitions.ts';
import type { Model } from './model.ts';
import { stopFor } from './money/stop.ts';
import { addressed, noticed, notified, rearm } from './notices/notify.ts';
import { publishing, pulsed } from './notices/publishing.ts';
import { slept } from './pacing/clock.ts';
import { joinedOthers, leaving, shareTaken } from './pacing/governor-share.ts';
import { limitsRead } from './pacing/rate-limits.ts';
import { limitsUnavailable } from './pacing/service-down.ts';
import { refusalOfBatch, reviewed } from './reviews/decisions.ts';
import { ticked } from './tick.ts';

export function step(m: Model, event: CampaignEvent): Effect[] {
  // Answers that move nothing, not even the caps: a read failure that fails the workflow (the
  // runtime rethrows it), a record failure that stops nothing (the update fails with its reason),
  // and a cancel's first pass that leaves heirs to cancel in a second one.
  switch (event.kind) {
    case 'read-failed':
      if (event.failure !== 'service_unavailable' && !stopFor(event.failure)) return [{ kind: 'fail' }];
      break;
    case 'record-failed':
      if (!stopFor(event.failure)) return [];
      break;
    case 'canceled':
      // Heirs created while their predecessors were being canceled are canceled in turn.
      if (event.after === 'creates' && m.run.chaining > 0)
        return [{ kind: 'cancel-upstream', after: 'heirs' }];
      break;
  }
  // Spend caps (workflows/engine/caps.ts) follow every event: asks, spend reports, the reservation given back.
  return addressed(m, withCaps(m, route(m, event), event.kind === 'canceled'));
}

/**
 * Why the `review` update would refuse a batch as a whole, judged without changing anything (its
 * validator); null: `step` takes it as a `review` event.
 */
export function refusalOfReview(m: Model, batch: ReviewBatch): { message: string; ack?: ReviewAck } | null {
  return refusalOfBatch(m, batch, standing(m.jobs));
}

function route(m: Model, event: CampaignEvent): Effect[] {
  switch (event.kind) {
    case 'tick':
      return noticed(m, ticked(m, event));
    case 'started':
      if (event.joinedOthers) joinedOthers(m);
      // What the last run handed over is finished in batches: one activity per step, not one
      // per prediction (up to C of them at every roll-over).
      return resumedBatches(m, inFlight(m.jobs.slots));
    case 'slept':
      slept(m.clock, event.from, event.ms);
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
      admit(m.jobs, event.jobs);
      return [];
    case 'released':
      released(m.jobs, event.span, event.jobs);
      return [];
    case 'read-failed':
      // The service down: counted as a report, the pause (and its next try) is news for the memo.
      if (event.failure === 'service_unavailable') return reported(m, limitsUnavailable(m, event.message));
      return readLost(m, stopFor(event.failure)!, event.message);
    case 'record-failed':
      return readLost(m, stopFor(event.failure)!, event.message);
    case 'review': {
      const effects = reviewed(m, event.decisions, event.at, standing(m.jobs));
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
      // Creates under way land first, so the claims log names their predictions too.
      m.run.cancelled = true;
      return [{ kind: 'cancel-upstream', after: 'creates' }];
    case 'canceled':
      cancelAll(m.jobs);
      return [
        ...leaving(m),
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

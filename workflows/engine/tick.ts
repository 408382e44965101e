/**
 * What the campaign does next when nothing is reporting: the loop's tick, answered by
 * pacing/decide.ts (drain, roll over, read limits, read the plan, time out reviews, submit, wait)
 * as effects, with the pacer read on the campaign clock. It reads every concern, so it sits
 * beside `step`, above them.
 */
import type { Effect } from './effects.ts';
import type { Tick } from './events.ts';
import { activeCount, isDone, maxInFlight, waitingCount, wanted } from './jobs/occupancy.ts';
import { mayName } from './jobs/reports.ts';
import { pick } from './jobs/transitions.ts';
import type { Model } from './model.ts';
import { stopped } from './money/stop.ts';
import { publishing } from './notices/publishing.ts';
import { batchWorth, decide, HEIR_BATCH_MS, MAX_DRAIN_MS, type Situation } from './pacing/decide.ts';
import { leaving } from './pacing/governor-share.ts';
import { available, msUntilNext, take } from './pacing/pacer.ts';
import { draining, drainLeftMs } from './pacing/run-state.ts';
import { timedOut } from './reviews/decisions.ts';
import type { Span } from './reviews/review-rules.ts';
import { nextRead } from './reviews/reviews.ts';
import { deadline } from './reviews/timeouts.ts';

function situation(m: Model, tick: Tick, release: Span | undefined): Situation {
  const { jobs, run, pacer, clock, rollOverLimit } = m;
  const now = clock.at;
  const rate = jobs.limits.createsPerSecond;
  const minBatch = mayName(m) ? batchWorth(rate, HEIR_BATCH_MS) : batchWorth(rate);
  return {
    done: isDone(jobs),
    draining: draining(run),
    rollOverDue: tick.continueAsNewSuggested || tick.historyLength >= rollOverLimit,
    drainLeftMs: drainLeftMs(run, now, MAX_DRAIN_MS),
    creating: run.creating,
    active: activeCount(jobs),
    waiting: waitingCount(jobs),
    maxInFlight: maxInFlight(jobs),
    wanted: wanted(jobs),
    limitsStale: run.limitsStale,
    msSinceLimitsRead: now - run.limitsReadAt,
    tokens: available(pacer, now),
    msUntilToken: msUntilNext(pacer, now),
    minBatch,
    msUntilBatch: msUntilNext(pacer, now, minBatch),
    released: release !== undefined,
    reviewsDue: (deadline(jobs.reviews, jobs.steps) ?? Number.POSITIVE_INFINITY) <= now,
  };
}

/** The loop's tick: one command of decide.ts, as the effects that carry it out. */
export function ticked(m: Model, tick: Tick): Effect[] {
  const { jobs, run, pacer, clock } = m;
  // The plan's next read for the jobs reviewers released, unless the campaign stopped.
  const release = stopped(jobs.halt) ? undefined : nextRead(jobs.reviews);
  const command = decide(situation(m, tick, release));
  switch (command.kind) {
    case 'complete':
      return [...leaving(m), ...publishing(m, null, true), { kind: 'complete' }];
    case 'roll-over':
      return [...publishing(m, null, true), { kind: 'roll-over' }];
    case 'start-drain':
      run.drainingSince = clock.at;
      return [
        {
          kind: 'log',
          level: 'info',
          message: 'draining before continue-as-new',
          attrs: { history: tick.historyLength },
        },
      ];
    case 'read-limits':
      return [{ kind: 'read-limits' }];
    case 'load-jobs':
      return [{ kind: 'load-jobs', from: jobs.window.cursor, count: command.count }];
    case 'read-released':
      return [{ kind: 'read-released', span: release! }];
    case 'time-out-reviews':
      return timedOut(m, tick.at);
    case 'submit': {
      const batch = pick(jobs, command.max);
      // The selection rule let no job start: wait for a change.
      if (batch.length === 0) return [...publishing(m, null), { kind: 'wait', ms: null }];
      take(pacer, batch.length, clock.at);
      run.creating++;
      const since = run.outage.reconcileSince;
      return [since === null ? { kind: 'create', batch } : { kind: 'create', batch, reconcileSince: since }];
    }
    case 'wait':
      return [...publishing(m, command.ms), { kind: 'wait', ms: command.ms }];
  }
}

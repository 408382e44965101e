/**
 * What the campaign does next when nothing is reporting: the loop's tick, answered by decide.ts
 * (drain, roll over, read limits, read the plan, submit, wait) as effects, with the pacer read on
 * the campaign clock. Also what the loop's own reads bring back: limits, jobs, a stop.
 */
import type { JobRef, ServiceLimits } from '../../contract/campaign.ts';
import * as Jobs from '../campaign-state.ts';
import * as Clock from '../clock.ts';
import { batchWorth, decide, HEIR_BATCH_MS, MAX_DRAIN_MS, mayPublish, type Situation } from '../decide.ts';
import * as Moves from '../job-moves.ts';
import * as Pacer from '../pacer.ts';
import * as Run from '../run-state.ts';
import * as Gates from '../state/gates.ts';
import type { StopReason } from '../state/stop.ts';
import type { Effect } from './effects.ts';
import type { Tick } from './events.ts';
import { mayName } from './jobs.ts';
import type { Model } from './model.ts';
import { timedOut } from './reviews.ts';

/** Campaign-clock time between two search-attribute updates while it runs (each is a history event). */
const INDEX_EVERY_MS = 10_000;

function situation(m: Model, tick: Tick): Situation {
  const { jobs, run, pacer, clock, rollOverLimit } = m;
  const now = clock.at;
  const rate = jobs.limits.createsPerSecond;
  const minBatch = mayName(m) ? batchWorth(rate, HEIR_BATCH_MS) : batchWorth(rate);
  return {
    done: Jobs.isDone(jobs),
    draining: Run.draining(run),
    rollOverDue: tick.continueAsNewSuggested || tick.historyLength >= rollOverLimit,
    drainLeftMs: Run.drainLeftMs(run, now, MAX_DRAIN_MS),
    creating: run.creating,
    active: Jobs.activeCount(jobs),
    waiting: Jobs.waitingCount(jobs),
    maxInFlight: Jobs.maxInFlight(jobs),
    wanted: Jobs.wanted(jobs),
    limitsStale: run.limitsStale,
    msSinceLimitsRead: now - run.limitsReadAt,
    tokens: Pacer.available(pacer, now),
    msUntilToken: Pacer.msUntilNext(pacer, now),
    minBatch,
    msUntilBatch: Pacer.msUntilNext(pacer, now, minBatch),
    released: jobs.halt.reason === null && Gates.nextRead(jobs) !== undefined,
    reviewsDue: (Gates.deadline(jobs) ?? Number.POSITIVE_INFINITY) <= now,
  };
}

/** The loop's tick: one command of decide.ts, as the effects that carry it out. */
export function next(m: Model, tick: Tick): Effect[] {
  const { jobs, run, pacer, clock } = m;
  const command = decide(situation(m, tick));
  switch (command.kind) {
    case 'complete':
      return [
        ...(m.governed ? [{ kind: 'tell-governor', note: { kind: 'leave' } } as const] : []),
        ...publishing(m, null, true),
        { kind: 'complete' },
      ];
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
      return [{ kind: 'read-released', span: Gates.nextRead(jobs)! }];
    case 'time-out-reviews':
      return timedOut(m, tick.at);
    case 'submit': {
      const batch = Moves.pick(jobs, command.max);
      // The selection rule let no job start: wait for a change.
      if (batch.length === 0) return [...publishing(m, null), { kind: 'wait', ms: null }];
      Pacer.take(pacer, batch.length, clock.at);
      run.creating++;
      const since = run.outage.reconcileSince;
      return [since === null ? { kind: 'create', batch } : { kind: 'create', batch, reconcileSince: since }];
    }
    case 'wait':
      return [...publishing(m, command.ms), { kind: 'wait', ms: command.ms }];
  }
}

/**
 * The memo's progress (and the search attributes, every INDEX_EVERY_MS) when due before the loop
 * waits `idleFor` (null: until a report), or always when `final` (decide.ts, mayPublish).
 */
export function publishing(m: Model, idleFor: number | null, final = false): Effect[] {
  const { run, clock, jobs } = m;
  const now = clock.at;
  const due = mayPublish({
    sinceMs: now - (run.publishedAt ?? Number.NEGATIVE_INFINITY),
    unpublished: run.reports - run.publishedReports,
    idleFor,
    reportGapMs: Jobs.expectedReportGapMs(jobs),
  });
  if (!final && !due) return [];
  run.publishedAt = now;
  run.publishedReports = run.reports;
  // Counts and money for searching need not move every second: every INDEX_EVERY_MS, and last.
  const indexed =
    m.searchable && (final || now - (run.indexedAt ?? Number.NEGATIVE_INFINITY) >= INDEX_EVERY_MS);
  if (indexed) run.indexedAt = now;
  return [{ kind: 'publish', indexed }];
}

/**
 * The wall-clock pulse fired (workflows/pulse.ts): the clock moves by what it slept, and progress
 * is published when nothing was for a whole pulse, even with no new report (its time left, and
 * the search attributes, were frozen while an activity retried). A busy campaign, publishing
 * about every second anyway, adds nothing.
 */
export function pulsed(m: Model, from: number, ms: number): Effect[] {
  const { run, clock } = m;
  Clock.slept(clock, from, ms);
  if (clock.at - (run.publishedAt ?? Number.NEGATIVE_INFINITY) < ms) return [];
  return publishing(m, null, true);
}

/** The service's limits as read: the governor shares them out; without one they are the campaign's. */
export function limitsRead(m: Model, read: ServiceLimits): Effect[] {
  const { jobs, run, pacer, clock } = m;
  Run.limitsRead(run, clock.at);
  // Shared out by the governor, the limits come back as this campaign's share.
  if (m.governed) return [{ kind: 'tell-governor', note: { kind: 'limits', limits: read } }];
  const before = jobs.limits;
  jobs.limits = read;
  Pacer.setRate(pacer, read.createsPerSecond, clock.at);
  if (before.createsPerSecond === read.createsPerSecond && before.maxInFlight === read.maxInFlight) return [];
  return [{ kind: 'log', level: 'info', message: 'service limits changed', attrs: { before, after: read } }];
}

export function jobsLoaded(m: Model, jobs: readonly JobRef[]): Effect[] {
  Moves.admit(m.jobs, jobs);
  return [];
}

/**
 * A read of the loop failed on a condition of the whole campaign: it stops with that outcome (the
 * loop then lets work in flight land). A failed limits read is not tried again at once.
 */
export function readLost(m: Model, stop: StopReason, message: string): Effect[] {
  Moves.stopWith(m.jobs, stop, message);
  Run.limitsRead(m.run, m.clock.at);
  return [
    { kind: 'log', level: 'warn', message: 'campaign stopping', attrs: { outcome: stop, reason: message } },
  ];
}

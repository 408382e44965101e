/**
 * The reducer against random worlds (fast-check): a small chained campaign is driven through
 * random orders of ticks, create answers (created, cached, rejected, rate limited), finish answers
 * (succeeded, failed, lost to any failure kind, heirs created or not), clock moves, shares and
 * cancels, and after every event the campaign's promises hold:
 * - money spent plus committed never passes the budget;
 * - no job is created while its parent is unfinished;
 * - no job is in flight twice, and never more than the campaign's limit at once;
 * - once it ends, every job ended in exactly one outcome.
 * And the model is plain data: swapped for its JSON copy at any event (with review decisions and
 * caps grants among the events), the run decides exactly what it would have decided without.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { InFlightJob, PendingJob } from '../../contract/campaign.ts';
import type { FailureKind } from '../../contract/failure-policy.ts';
import type { Effect } from '../../workflows/engine/effects.ts';
import type { CampaignEvent } from '../../workflows/engine/events.ts';
import * as Occupancy from '../../workflows/engine/jobs/occupancy.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  CLIP_USD,
  createdOutcome,
  finishedOne,
  jobsOf,
  modelOf,
  STILL_USD,
  tick,
  viewOf,
} from './step-fixture.ts';

const LOST_KINDS: FailureKind[] = [
  'finish_gave_up',
  'prediction_failed',
  'disk_full',
  'authentication_failed',
];

/** One world: the model, and the answers the executor owes it. */
function world(shape: {
  stills: number;
  budget: number | null;
  concurrency: number;
  reviewed?: boolean;
  capped?: boolean;
}) {
  let m = modelOf({
    ...shape,
    chained: true,
    retries: 1,
    limits: { createsPerSecond: 20, maxInFlight: 50 },
  });
  const plan = jobsOf({ stills: shape.stills, chained: true, reviewed: shape.reviewed ?? false });
  const creates: (readonly PendingJob[])[] = [];
  const finishes: InFlightJob[] = [];
  /** Jobs with a create, a prediction or a reservation as heir under way, by plan index. */
  const busy = new Set<number>();
  /** Jobs ever handed to a create (or named an heir): a parent never tried is unfinished too. */
  const tried = new Set<string>();
  /** Keys of jobs whose output was saved (or found), and how many times each was. */
  const saved = new Map<string, number>();
  let done = false;

  /** A job about to be created (or reserved as an heir) takes its place; its parent must have ended. */
  function hold({ job }: PendingJob): void {
    if (
      job.parent !== null &&
      (!tried.has(job.parent) || busy.has(plan.findIndex((j) => j.key === job.parent)))
    )
      throw new Error(`${job.name} created while its parent is unfinished`);
    if (busy.has(job.i)) throw new Error(`${job.name} held twice`);
    busy.add(job.i);
    tried.add(job.key);
  }

  function take(effects: readonly Effect[]): void {
    for (const effect of effects) {
      if (effect.kind === 'create') {
        for (const pending of effect.batch) hold(pending);
        creates.push(effect.batch);
      }
      if (effect.kind === 'finish-batch') {
        for (const flight of effect.flights) if (flight.heir) hold(flight.heir);
        finishes.push(...effect.flights);
      }
      if (effect.kind === 'complete' || effect.kind === 'roll-over') done = true;
    }
  }

  function save(key: string): void {
    saved.set(key, (saved.get(key) ?? 0) + 1);
  }

  /** Every effect the reducer gave, in order, as JSON: two worlds that decided alike have equal logs. */
  const decided: string[] = [];

  /** Applies an event, then checks the promises that hold at every moment. */
  function apply(event: CampaignEvent): void {
    const effects = step(m, event);
    decided.push(JSON.stringify(effects));
    take(effects);
    check();
    // The loop awaits its own reads: they are answered before anything else happens.
    for (const effect of effects) {
      if (effect.kind === 'load-jobs')
        apply({ kind: 'jobs-loaded', jobs: plan.slice(effect.from, effect.from + effect.count) });
      if (effect.kind === 'read-limits') apply({ kind: 'limits-read', limits: viewOf(m).limits });
      if (effect.kind === 'read-released') {
        const { from, count } = effect.span;
        apply({ kind: 'released', span: effect.span, jobs: plan.slice(from, from + count) });
      }
    }
  }

  function check(): void {
    if (shape.budget !== null)
      expect(viewOf(m).spent + viewOf(m).committed).toBeLessThanOrEqual(shape.budget);
    expect(viewOf(m).active).toBeLessThanOrEqual(Occupancy.maxInFlight(m.jobs));
  }

  /** What the create activity answers: a child of a parent without an output is skipped, as it finds. */
  function outcomeOf(job: PendingJob['job'], pick: number): CreateOutcome {
    if (job.parent !== null && !saved.has(job.parent))
      return { kind: 'skipped', i: job.i, reason: 'no parent output' };
    if (pick === 0) return { kind: 'retry', i: job.i, afterMs: 500 };
    if (pick === 1)
      return { kind: 'rejected', i: job.i, code: 'INVALID', message: 'no', failure: 'rejected' };
    if (pick === 2) return { kind: 'cached', i: job.i };
    return createdOutcome(job.i, m.clock.at);
  }

  function answerCreate(choice: number): void {
    const batch = creates.shift()!;
    const outcomes = batch.map(({ job }, n) => outcomeOf(job, (choice + n) % 8));
    for (const outcome of outcomes) {
      if (outcome.kind !== 'created') busy.delete(outcome.i);
      if (outcome.kind === 'cached') save(plan[outcome.i]!.key);
    }
    apply({ kind: 'created', batch, outcomes });
  }

  function answerFinish(choice: number): void {
    const flight = finishes.splice(choice % finishes.length, 1)[0]!;
    const { job } = flight.pending;
    busy.delete(job.i);
    const at = m.clock.at + 100;
    if (choice % 7 === 0) {
      if (flight.heir) busy.delete(flight.heir.job.i);
      const kind = LOST_KINDS[choice % LOST_KINDS.length]!;
      apply({ kind: 'batch-lost', flights: [flight], lost: { failure: kind, message: kind } });
      return;
    }
    const failed = choice % 5 === 0;
    const usd = job.step === 0 ? STILL_USD : CLIP_USD;
    const outcome = failed
      ? ({ kind: 'failed', creditsUsed: 0, message: 'bad' } as const)
      : ({ kind: 'succeeded', creditsUsed: usd, file: 'f' } as const);
    if (!failed) save(job.key);
    // The heir is created by the same activity, or not tried (it then waits its turn again).
    const heir = flight.heir && (choice % 3 === 0 ? null : outcomeOf(flight.heir.job, 3));
    if (flight.heir && heir?.kind !== 'created') busy.delete(flight.heir.job.i);
    if (heir?.kind === 'skipped') busy.delete(heir.i);
    apply(finishedOne(flight, { outcome, heir, waitedMs: 100, at }));
  }

  /** A reviewer decides on a still (which may await review, or not: the reducer refuses what does not apply). */
  function review(choice: number): void {
    const action = (['approve', 'reject', 'regenerate'] as const)[choice % 3]!;
    apply({ kind: 'review', decisions: [{ key: `s${choice % shape.stills}`, action }], at: 'T' });
  }

  /** The key's caps ledger grants reservation on one of the two models. */
  function grant(choice: number): void {
    const model = choice % 2 === 0 ? 'I4' : 'V4';
    apply({ kind: 'caps-grant', grant: { model, micros: 100_000 + choice * 1_000, hold: null } });
  }

  /**
   * The model goes through JSON and the world carries on with the copy, as if it were carried to
   * another run or process: plain data comes back whole, and the copy decides as the original would.
   */
  function revive(): void {
    const copy: typeof m = JSON.parse(JSON.stringify(m));
    expect(copy).toStrictEqual(m);
    m = copy;
  }

  return {
    get m() {
      return m;
    },
    plan,
    creates,
    finishes,
    saved,
    decided,
    apply,
    answerCreate,
    answerFinish,
    review,
    grant,
    revive,
    isDone: () => done,
  };
}

/** The campaigns the worlds run: small and chained; `extras` adds review gates and spend caps as they come. */
const shapeOf = (extras: boolean) =>
  fc.record({
    stills: fc.integer({ min: 1, max: 6 }),
    budget: fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: null }),
    concurrency: fc.integer({ min: 1, max: 5 }),
    reviewed: extras ? fc.boolean() : fc.constant(false),
    capped: extras ? fc.boolean() : fc.constant(false),
  });

describe('step: properties over random worlds', () => {
  it('money, parents, slots and outcomes hold whatever happens in whatever order', () => {
    fc.assert(
      fc.property(
        shapeOf(false),
        fc.array(fc.nat(1_000), { minLength: 1, maxLength: 300 }),
        (shape, choices) => {
          const w = drive(world(shape), choices, null);
          expect(w.isDone()).toBe(true);
          // No output saved twice; a campaign that completed ended every job in one outcome.
          for (const [key, count] of w.saved) expect(count, key).toBe(1);
          const progress = Progress.campaignProgress(w.m.jobs, 'c', w.m.clock.at);
          const ended = progress.steps.reduce(
            (n, s) => n + s.succeeded + s.cached + s.failed + s.skipped + s.canceled,
            0,
          );
          if (progress.outcome === 'completed') expect(ended).toBe(w.plan.length);
          else expect(ended).toBeLessThanOrEqual(w.plan.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the model is plain data: carried through JSON at any moment, it decides exactly as before', () => {
    fc.assert(
      fc.property(
        shapeOf(true),
        fc.array(fc.nat(1_000), { minLength: 1, maxLength: 200 }),
        fc.nat(199),
        (shape, choices, at) => {
          const kept = drive(world(shape), choices, null);
          const carried = drive(world(shape), choices, at % choices.length);
          expect(carried.decided).toEqual(kept.decided);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** Drives a world through `choices` (reviving its model through JSON before choice `reviveAt`) to the end. */
function drive(w: ReturnType<typeof world>, choices: readonly number[], reviveAt: number | null) {
  w.apply({ kind: 'started', joinedOthers: false });
  for (const [n, choice] of choices.entries()) {
    if (n === reviveAt) w.revive();
    if (w.isDone()) break;
    const move = choice % 10;
    if (move < 3 && w.creates.length > 0) w.answerCreate(choice);
    else if (move < 7 && w.finishes.length > 0) w.answerFinish(choice);
    else if (move === 7) w.apply({ kind: 'slept', from: w.m.clock.at, ms: 50 + choice });
    else if (move === 8 && choice % 3 === 0) w.review(choice);
    else if (move === 8 && choice % 3 === 1) w.grant(choice);
    else w.apply(tick);
  }
  // Whatever is still owed is answered in order, and the loop ticks on until the campaign ends or
  // a minute passes with nothing owed (takes awaiting a reviewer who never comes).
  for (let n = 0, idle = 0; !w.isDone() && idle < 60; n++) {
    idle = w.creates.length + w.finishes.length > 0 ? 0 : idle + 1;
    if (w.creates.length > 0) w.answerCreate(n);
    else if (w.finishes.length > 0) w.answerFinish(1 + n * 2);
    else {
      w.apply({ kind: 'slept', from: w.m.clock.at, ms: 1_000 });
      w.apply({ ...tick, historyLength: 10 });
    }
  }
  return w;
}

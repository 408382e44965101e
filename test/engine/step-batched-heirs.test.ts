/**
 * Heirs in batched finishes (docs/engine.md, "The ceiling"): a window-bound campaign's created jobs
 * name heirs, are finished in one activity per batch, and an heir a batch created is finished in
 * the next batch: one activity per batch of jobs, not per job, with every heir held, paced,
 * canceled and lost.
 */

import { describe, expect, it } from 'vitest';
import type { FinishBatchItem } from '../../contract/activities.ts';
import type { InFlightJob } from '../../contract/campaign.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';
import * as Clock from '../../workflows/engine/pacing/clock.ts';
import * as Pacer from '../../workflows/engine/pacing/pacer.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  createAll,
  createdOutcome,
  flightsOf,
  kinds,
  loaded,
  type Shape,
  STILL_USD,
  succeeded,
  tick,
  viewOf,
} from './step-fixture.ts';

/** Window-bound (C = 2, 100 creates/s): every created job names an heir. */
const WINDOW_BOUND: Shape = { stills: 6, concurrency: 2, limits: { createsPerSecond: 100, maxInFlight: 50 } };

const names = (flights: readonly InFlightJob[]) =>
  flights.map((f) => [f.pending.job.name, f.heir?.job.name ?? null]);

/** Each flight ended, its heir created. */
const endedWithHeirs = (flights: readonly InFlightJob[]): FinishBatchItem[] =>
  flights.map((f) => ({
    kind: 'finished',
    ...succeeded(STILL_USD, 2_000, f.heir ? createdOutcome(f.heir.job.i, 2_000) : null),
  }));

describe('step: heirs in batched finishes', () => {
  it('a window-bound create batch is finished by one activity, each job naming its heir', () => {
    const m = loaded(WINDOW_BOUND);
    const effects = createAll(m);
    expect(kinds(effects)).toEqual(['finish-batch']);
    expect(names(flightsOf(effects))).toEqual([
      ['still-0', 'still-2'],
      ['still-1', 'still-3'],
    ]);
    // Held like a single finish's heirs: cancel waits for the batch.
    expect(viewOf(m).chaining).toBe(2);
  });

  it('the batch reports: the heirs it created take the slots, paced, and go on in one batch naming the next', () => {
    const m = loaded(WINDOW_BOUND);
    const flights = flightsOf(createAll(m));
    const tokens = Pacer.available(m.pacer, 2_000);
    const effects = step(m, { kind: 'batch-finished', flights, results: endedWithHeirs(flights) });
    expect(kinds(effects)).toEqual(['finish-batch']);
    expect(names(flightsOf(effects))).toEqual([
      ['still-2', 'still-4'],
      ['still-3', 'still-5'],
    ]);
    expect(Pacer.available(m.pacer, 2_000)).toBe(tokens - 2);
    expect(viewOf(m).spent).toBe(2 * STILL_USD);
    expect(viewOf(m).counts[0]).toMatchObject({ succeeded: 2, created: 4 });
    expect(viewOf(m).chaining).toBe(2);
    expect(viewOf(m).active).toBe(2);
  });

  it('an item still running keeps its heir and joins the heirs created in the next batch', () => {
    const m = loaded(WINDOW_BOUND);
    const flights = flightsOf(createAll(m));
    const [ended] = endedWithHeirs(flights);
    const effects = step(m, { kind: 'batch-finished', flights, results: [ended!, { kind: 'pending' }] });
    expect(names(flightsOf(effects))).toEqual([
      ['still-2', 'still-4'],
      ['still-1', 'still-3'],
    ]);
    expect(viewOf(m).chaining).toBe(2);
  });

  it('an item stopped by a campaign-wide failure: its heir goes back to the queue, to be created again under its key', () => {
    const m = loaded(WINDOW_BOUND);
    const flights = flightsOf(createAll(m));
    const [, second] = endedWithHeirs(flights);
    const stopped: FinishBatchItem = { kind: 'stopped', failure: 'disk_full', message: 'no space left' };
    const effects = step(m, { kind: 'batch-finished', flights, results: [stopped, second!] });
    expect(names(flightsOf(effects))).toEqual([['still-3', null]]);
    expect(Progress.campaignProgress(m.jobs, 'c', 0).outcome).toBe('running');
    expect(viewOf(m).chaining).toBe(0);
    // still-2 (the stopped one's heir) is waiting again, not lost: nothing new starts after a stop.
    expect(viewOf(m).counts[0]).toMatchObject({ created: 3 });
  });

  it('a batch lost for good fails its jobs and sends their heirs back', () => {
    const m = loaded({ ...WINDOW_BOUND, retries: 0 });
    const flights = flightsOf(createAll(m));
    expect(step(m, { kind: 'batch-lost', flights, lost: { failure: null, message: 'boom' } })).toEqual([]);
    expect(viewOf(m).chaining).toBe(0);
    expect(viewOf(m).counts[0]).toMatchObject({ failed: 2 });
    expect(viewOf(m).active).toBe(0);
    // The heirs are picked again by the next tick.
    expect(kinds(step(m, tick))).toContain('create');
  });

  it('canceled: heirs a batch created are counted canceled, items still running are waited for again', () => {
    const m = loaded(WINDOW_BOUND);
    const flights = flightsOf(createAll(m));
    step(m, { kind: 'cancel-requested' });
    const [ended] = endedWithHeirs(flights);
    const effects = step(m, { kind: 'batch-finished', flights, results: [ended!, { kind: 'pending' }] });
    expect(names(flightsOf(effects))).toEqual([['still-1', 'still-3']]);
    expect(viewOf(m).chaining).toBe(1);
    expect(viewOf(m).counts[0]).toMatchObject({ canceled: 1 });
    const last = step(m, {
      kind: 'batch-finished',
      flights: flightsOf(effects),
      results: [{ kind: 'finished', ...succeeded(STILL_USD, 2_000, null) }],
    });
    expect(last).toEqual([]);
    expect(viewOf(m).chaining).toBe(0);
  });

  it('window-bound creates gather 250 ms of the rate into one batch, so fewer, larger batches cycle', () => {
    const shape: Shape = {
      stills: 300,
      concurrency: 100,
      limits: { createsPerSecond: 100, maxInFlight: 100 },
    };
    const gathered = loaded(shape);
    Pacer.take(gathered.pacer, 90, 0);
    expect(step(gathered, tick).filter((e) => e.kind !== 'publish')).toEqual([{ kind: 'wait', ms: 150 }]);
    Clock.observe(gathered.clock, 150);
    expect(step(gathered, tick)).toMatchObject([{ kind: 'create', batch: { length: 25 } }]);
  });

  it('a run that took predictions over waits for them in batches per step, their waits not taken as latencies', () => {
    const m = loaded(WINDOW_BOUND);
    const flights = flightsOf(createAll(m));
    m.run.chaining = 0; // as a new run starts: nothing of its own under way yet
    const effects = step(m, { kind: 'started', joinedOthers: false });
    expect(effects).toMatchObject([{ kind: 'finish-batch', resumed: true, flights }]);
    expect(viewOf(m).chaining).toBe(2);
    const [ended] = endedWithHeirs(flights);
    const next = step(m, {
      kind: 'batch-finished',
      flights,
      results: [ended!, { kind: 'pending' }],
      resumed: true,
    });
    // The one still running stays resumed; the heir created is this run's own.
    expect(next).toMatchObject([
      { kind: 'finish-batch', resumed: true, flights: [{ pending: { job: { name: 'still-1' } } }] },
      { kind: 'finish-batch', flights: [{ pending: { job: { name: 'still-2' } } }] },
    ]);
    expect(next[1]).not.toHaveProperty('resumed');
    expect(viewOf(m).latencyMs).toBeNull();
  });
});

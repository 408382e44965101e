import { describe, expect, it } from 'vitest';
import {
  batchWorth,
  type Command,
  decide,
  LIMITS_REREAD_MS,
  MAX_BATCH,
  MIN_EVENTS_PER_RUN,
  MIN_PACING_MS,
  mayNameHeir,
  mayPublish,
  rollOverAt,
  type Situation,
} from '../../workflows/engine/pacing/decide.ts';

/** A campaign in full swing: nothing special going on, tokens in hand, jobs waiting. */
const running: Situation = {
  done: false,
  draining: false,
  rollOverDue: false,
  drainLeftMs: 0,
  creating: 0,
  active: 10,
  waiting: 40,
  maxInFlight: 16,
  wanted: 0,
  limitsStale: false,
  msSinceLimitsRead: 0,
  tokens: 8,
  msUntilToken: 0,
  // One token is a batch: gathering (its own cases below) never holds these situations back.
  minBatch: 1,
  msUntilBatch: 0,
};

const situations: [string, Partial<Situation>, Command][] = [
  ['nothing left to do ends the campaign', { done: true }, { kind: 'complete' }],
  ['a long history starts the drain', { rollOverDue: true }, { kind: 'start-drain' }],
  [
    'a drain waits for creates under way',
    { draining: true, drainLeftMs: 3_000, creating: 1, active: 0 },
    { kind: 'wait', ms: 3_000 },
  ],
  [
    'a drain with nothing in flight rolls over',
    { draining: true, drainLeftMs: 3_000, active: 0 },
    { kind: 'roll-over' },
  ],
  [
    'a drain out of time rolls over with work in flight',
    { draining: true, drainLeftMs: 0, active: 5 },
    { kind: 'roll-over' },
  ],
  ['a drain never submits', { draining: true, drainLeftMs: 20 }, { kind: 'wait', ms: MIN_PACING_MS }],
  [
    'stale limits are read again a second after the last read',
    { limitsStale: true, msSinceLimitsRead: LIMITS_REREAD_MS },
    { kind: 'read-limits' },
  ],
  [
    'stale limits read recently: carry on',
    { limitsStale: true, msSinceLimitsRead: 100 },
    { kind: 'submit', max: 8 },
  ],
  ['a window short of jobs reads the plan', { wanted: 64, waiting: 10 }, { kind: 'load-jobs', count: 64 }],
  [
    'a window with enough jobs waiting does not read',
    { wanted: 64, waiting: 16 },
    { kind: 'submit', max: 8 },
  ],
  ['tokens in hand submit that many', {}, { kind: 'submit', max: 8 }],
  [
    'rate-bound: fewer tokens than a batch wait for the batch',
    { minBatch: 10, active: 0, msUntilBatch: 20 },
    { kind: 'wait', ms: 20 },
  ],
  ['rate-bound: a batch in hand is submitted', { minBatch: 8, active: 0 }, { kind: 'submit', max: 8 }],
  [
    'fewer free slots than a batch: fill them at once',
    { minBatch: 10, active: 10, maxInFlight: 16 },
    { kind: 'submit', max: 8 },
  ],
  [
    'fewer jobs waiting than a batch (the plan ends): create them at once',
    { minBatch: 10, active: 0, waiting: 4 },
    { kind: 'submit', max: 8 },
  ],
  ['a batch is capped', { tokens: 500 }, { kind: 'submit', max: MAX_BATCH }],
  [
    'no token while jobs wait for a free slot: sleep until the next token',
    { tokens: 0, msUntilToken: 340 },
    { kind: 'wait', ms: 340 },
  ],
  [
    'pacing sleeps are not shorter than the minimum',
    { tokens: 0, msUntilToken: 3 },
    { kind: 'wait', ms: MIN_PACING_MS },
  ],
  ['no token and a full window: wait for a report', { tokens: 0, active: 16 }, { kind: 'wait', ms: null }],
  ['no token and nothing waiting: wait for a report', { tokens: 0, waiting: 0 }, { kind: 'wait', ms: null }],
  ['a review decided: read what it released', { released: true }, { kind: 'read-released' }],
  [
    'takes past their review timeout are decided',
    { released: true, reviewsDue: true },
    { kind: 'time-out-reviews' },
  ],
  [
    'reviews wait while the run drains (the next run takes them)',
    { released: true, reviewsDue: true, draining: true, drainLeftMs: 1_000 },
    { kind: 'wait', ms: 1_000 },
  ],
  [
    'stale limits are read before releases',
    { released: true, limitsStale: true, msSinceLimitsRead: LIMITS_REREAD_MS },
    { kind: 'read-limits' },
  ],
];

describe('decide', () => {
  it.each(situations)('%s', (_, change, command) => {
    expect(decide({ ...running, ...change })).toEqual(command);
  });
});

describe('batchWorth', () => {
  it.each([
    [100, 10],
    [50, 5],
    [12.5, 1],
    [1, 1],
  ])('at %d creates a second gathers %d', (rate, batch) => {
    expect(batchWorth(rate)).toBe(batch);
  });
});

describe('rollOverAt', () => {
  it.each([
    [50, 4_850],
    [200, 4_400],
    [5_000, MIN_EVENTS_PER_RUN],
  ] as const)(
    'with %i in flight drains from event %i: a history a new worker replays within one task',
    (inFlight, events) => {
      expect(rollOverAt(inFlight)).toBe(events);
    },
  );
});

describe('mayNameHeir', () => {
  const bound = {
    draining: false,
    limitsStale: false,
    latencyMs: 1_000,
    maxInFlight: 50,
    createsPerSecond: 100,
  };
  it.each([
    ['the window binds (50 per second under a rate of 100)', {}, true],
    ['the rate binds (200 per second over a rate of 100)', { maxInFlight: 200 }, false],
    ['within the 5 % margin', { maxInFlight: 105 }, true],
    ['no latency measured yet', { latencyMs: null }, false],
    ['draining for continue-as-new', { draining: true }, false],
    ['a 429 until the limits are read again', { limitsStale: true }, false],
  ])('%s: %s', (_, change, expected) => {
    expect(mayNameHeir({ ...bound, ...change })).toBe(expected);
  });
});

describe('mayPublish', () => {
  const busy = { sinceMs: 200, unpublished: 3, idleFor: null, reportGapMs: 20 };
  it.each([
    ['nothing new since the last publication', { unpublished: 0, sinceMs: 60_000 }, false],
    ['the first publication', { unpublished: 1, sinceMs: Number.POSITIVE_INFINITY }, true],
    ['a second has passed', { sinceMs: 1_000 }, true],
    ['reports keep coming (one every 20 ms)', {}, false],
    ['a long paced sleep ahead', { idleFor: 1_500 }, true],
    ['a short paced sleep ahead', { idleFor: 300 }, false],
    ['long predictions in flight: the next report is seconds away', { reportGapMs: 7_500 }, true],
    ['in flight with no latency measured yet', { reportGapMs: Number.POSITIVE_INFINITY }, true],
  ])('%s: %s', (_, change, expected) => {
    expect(mayPublish({ ...busy, ...change })).toBe(expected);
  });
});

/**
 * The campaign state is plain data: no class instance, Map, Set, closure or getter
 * anywhere in it, only plain objects, arrays, finite numbers, strings, booleans and null, each
 * object reached once, so a JSON round trip gives it back as it was. Driven through
 * picks, heirs, creates, finishes, a failure, a review gate and spend caps, checked at each stage.
 */

import { describe, expect, it } from 'vitest';
import type { JobRef, StepInfo } from '../../contract/campaign.ts';
import type { ReviewRule } from '../../plan/review.ts';
import * as CarryOver from '../../workflows/engine/jobs/carry-over.ts';
import * as GatedWindow from '../../workflows/engine/jobs/gated-window.ts';
import * as Occupancy from '../../workflows/engine/jobs/occupancy.ts';
import * as Slots from '../../workflows/engine/jobs/slots.ts';
import * as Transitions from '../../workflows/engine/jobs/transitions.ts';
import type { CampaignState } from '../../workflows/engine/model.ts';
import * as Allowance from '../../workflows/engine/money/allowance.ts';
import * as Decisions from '../../workflows/engine/reviews/decisions.ts';
import * as Reviews from '../../workflows/engine/reviews/reviews.ts';
import * as Timeouts from '../../workflows/engine/reviews/timeouts.ts';

const key = (n: number) => n.toString(16).padStart(32, '0');
const rule: ReviewRule = { timeoutMs: 60_000, onTimeout: 'reject', editPrompt: false };
const steps: StepInfo[] = [
  { id: 'still', model: 'I1', retries: 1, concurrency: null, jobCount: 3, review: rule },
  { id: 'clip', model: 'V4', retries: 0, concurrency: 1, jobCount: 3 },
];

/** still-n at 2n with its clip at 2n + 1. */
const jobs = (from: number, to: number): JobRef[] =>
  [0, 1, 2]
    .flatMap((n) => [
      { i: 2 * n, key: key(2 * n), name: `still-${n}`, parent: null, step: 0, usd: 100, end: 2 * n + 2 },
      { i: 2 * n + 1, key: key(2 * n + 1), name: `clip-${n}`, parent: key(2 * n), step: 1, usd: 250 },
    ])
    .slice(from, to);

/** Where `value` is not plain data, by path: empty when it is. */
function impurities(value: unknown, path: string, seen: Set<object>): string[] {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return [];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path}: ${value}`];
  if (typeof value !== 'object') return [`${path}: ${typeof value}`];
  if (seen.has(value)) return [`${path}: reached twice`];
  seen.add(value);
  if (Array.isArray(value)) {
    const holes = Object.keys(value).length === value.length ? [] : [`${path}: holes or extra keys`];
    return [...holes, ...value.flatMap((item, n) => impurities(item, `${path}[${n}]`, seen))];
  }
  if (Object.getPrototypeOf(value) !== Object.prototype)
    return [`${path}: a ${value.constructor?.name ?? 'null-prototype object'}`];
  return Reflect.ownKeys(value).flatMap((name) => {
    const at = `${path}.${String(name)}`;
    const field = Object.getOwnPropertyDescriptor(value, name)!;
    if (typeof name === 'symbol' || !field.enumerable) return [`${at}: hidden`];
    if (field.get || field.set) return [`${at}: getter`];
    return impurities(field.value, at, seen);
  });
}

function expectPlain(state: CampaignState): void {
  expect(impurities(state, 'state', new Set())).toEqual([]);
  expect(JSON.parse(JSON.stringify(state))).toStrictEqual(state);
}

describe('the campaign state is plain data', () => {
  it('in every part, through picks, heirs, finishes, a review, a failure and caps', () => {
    let now = 0;
    const state = CarryOver.openCampaign(steps, 6, 10, 2_000, {
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
      caps: {
        carried: {
          reserved: [
            ['I1', 1_000],
            ['V4', 100],
          ],
          unreported: [],
          hold: null,
        },
      },
    });
    expectPlain(state);
    expect(state.allowance).not.toBeNull();
    const allowance = state.allowance!;

    // Picks, an heir, creates (one paid by an earlier run).
    GatedWindow.admit(state, jobs(0, 6));
    expect(Transitions.pick(state, 1).map(({ job }) => job.name)).toEqual(['still-0']);
    expect(Transitions.reserveHeir(state, 0)?.job.name).toBe('still-1');
    Transitions.onCreated(state, 0, 'p0', 5);
    expectPlain(state);
    Transitions.onFinished(state, 0, { kind: 'succeeded', creditsUsed: 100, file: 'a.png' }, now);
    Slots.promoteHeir(state.slots, 0);
    Transitions.onCreated(state, 2, 'p2', 6, { paidBefore: true });
    expect(Slots.inFlight(state.slots).map((f) => [f.predictionId, f.paidBefore])).toEqual([['p2', true]]);
    expectPlain(state);

    // A review gate: still-0 awaits a decision, its clip is parked; an approval releases it.
    expect(Reviews.awaiting(state.reviews, state.steps)).toEqual([1, 0]);
    expect(Timeouts.deadline(state.reviews, state.steps)).toBe(60_000);
    expectPlain(state);
    const { ack } = Decisions.review(
      state,
      [{ key: key(0), action: 'approve' }],
      'T',
      Occupancy.standing(state),
    );
    expect(ack.accepted).toEqual([key(0)]);
    GatedWindow.released(state, Reviews.nextRead(state.reviews)!, jobs(1, 2));
    expectPlain(state);

    // Caps: the clip does not fit the V4 reservation, so V4 is asked for, then granted.
    expect(Transitions.pick(state, 10)).toEqual([]);
    expect(Allowance.takeNeeds(allowance)).toEqual([{ model: 'V4', unit: 250 }]);
    expectPlain(state);
    Allowance.granted(allowance, 'V4', 500, null);
    expect(Transitions.pick(state, 10).map(({ job }) => job.name)).toEqual(['clip-0', 'still-2']);
    expect(Allowance.hasUnreported(allowance)).toBe(true);
    expect(allowance.reportedAt).toBeNull();
    now = 1_000;
    allowance.reportedAt = now;
    expect(Allowance.takeUnreported(allowance)).toEqual({ I1: 100 });
    expect(Allowance.hasUnreported(allowance)).toBe(false);
    expectPlain(state);

    // A failure regenerates once, then is recorded; a rejection skips a descendant.
    Transitions.onCreated(state, 1, 'p1', 7);
    Transitions.onFinished(state, 1, { kind: 'failed', message: 'bad', creditsUsed: 0 }, now);
    Transitions.onCreated(state, 4, 'p4', 8);
    Transitions.onFinished(state, 4, { kind: 'failed', message: 'worse', creditsUsed: 0 }, now);
    expect(Transitions.pick(state, 10).map(({ job }) => job.name)).toEqual(['still-2']);
    Transitions.onCreated(state, 4, 'p4b', 9);
    Transitions.onFinished(state, 4, { kind: 'failed', message: 'worst', creditsUsed: 0 }, now);
    expect(state.tally.recentFailures.map(({ message }) => message)).toEqual(['bad', 'worst']);
    expectPlain(state);

    // A cancel with a job in flight and an heir named: both let go.
    Transitions.onFinished(state, 2, { kind: 'succeeded', creditsUsed: 100, file: 'b.png' }, now);
    Decisions.review(state, [{ key: key(2), action: 'reject' }], 'T', Occupancy.standing(state));
    GatedWindow.released(state, Reviews.nextRead(state.reviews)!, jobs(3, 4));
    expectPlain(state);
    Transitions.cancelAll(state);
    expect(Occupancy.isDone(state)).toBe(true);
    expectPlain(state);
  });
});

describe('the plainness walk', () => {
  it('finds what is not plain data', () => {
    const shared = { n: 1 };
    const found = impurities(
      {
        map: new Map(),
        set: new Set(),
        inf: Number.NEGATIVE_INFINITY,
        gone: undefined,
        fn: () => 0,
        get getter() {
          return 1;
        },
        twice: [shared, shared],
      },
      '$',
      new Set(),
    );
    expect(found).toEqual([
      '$.map: a Map',
      '$.set: a Set',
      '$.inf: -Infinity',
      '$.gone: undefined',
      '$.fn: function',
      '$.getter: getter',
      '$.twice[1]: reached twice',
    ]);
  });
});

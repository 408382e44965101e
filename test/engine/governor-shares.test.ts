import { describe, expect, it } from 'vitest';
import type { ServiceLimits } from '../../contract/campaign.ts';
import type { Claim } from '../../contract/governor-messages.ts';
import { sharesOf, waterFill, wholeParts } from '../../workflows/governor/engine/shares.ts';

const R50: ServiceLimits = { createsPerSecond: 50, maxInFlight: 100 };
const claim = (campaign: string, wants = 200, weight = 1): Claim => ({ campaign, weight, wants });

/** [situation, limits, claims, shares by campaign as [creates/s, in flight]]. */
const situations: [string, ServiceLimits, Claim[], Record<string, [number, number]>][] = [
  ['one campaign alone takes the whole key', R50, [claim('a')], { a: [50, 100] }],
  ['two equal campaigns split it in halves', R50, [claim('a'), claim('b')], { a: [25, 50], b: [25, 50] }],
  [
    'four equal campaigns get a quarter each (the shared-key benchmark)',
    R50,
    [claim('a'), claim('b'), claim('c'), claim('d')],
    { a: [12.5, 25], b: [12.5, 25], c: [12.5, 25], d: [12.5, 25] },
  ],
  [
    'a campaign of low concurrency keeps what it can use; the rest goes to the other',
    R50,
    [claim('small', 10), claim('big')],
    { small: [25, 10], big: [25, 90] },
  ],
  [
    'weights split both limits in proportion',
    R50,
    [claim('a', 200, 3), claim('b', 200, 1)],
    { a: [37.5, 75], b: [12.5, 25] },
  ],
  [
    'in-flight parts are whole predictions, never more than the limit in all',
    { createsPerSecond: 10, maxInFlight: 10 },
    [claim('a'), claim('b'), claim('c')],
    { a: [10 / 3, 4], b: [10 / 3, 3], c: [10 / 3, 3] },
  ],
  [
    'more campaigns than predictions in flight: each keeps one, the service refuses the rest',
    { createsPerSecond: 10, maxInFlight: 2 },
    [claim('a'), claim('b'), claim('c')],
    { a: [10 / 3, 1], b: [10 / 3, 1], c: [10 / 3, 1] },
  ],
  [
    'a window-bound campaign keeps the rate it can use; the rest goes to the others',
    R50,
    [{ ...claim('slow', 4), perSecond: 5 }, claim('a'), claim('b')],
    { slow: [5, 4], a: [22.5, 48], b: [22.5, 48] },
  ],
  [
    'a rate need above the fair part does not cap it',
    R50,
    [{ ...claim('a'), perSecond: 125 }, claim('b')],
    { a: [25, 50], b: [25, 50] },
  ],
  [
    'a claim that makes no sense counts as the plain claim, never as NaN',
    R50,
    [{ campaign: 'odd', weight: 0, wants: Number.NaN, perSecond: -3 }, claim('a')],
    { a: [25, 99], odd: [25, 1] },
  ],
  [
    'weights 3:1:1:1 give 50 % and 16.7 % each (the weighted shared-key case)',
    R50,
    [claim('a', 200, 3), claim('b'), claim('c'), claim('d')],
    { a: [25, 50], b: [25 / 3, 17], c: [25 / 3, 17], d: [25 / 3, 16] },
  ],
  [
    'a higher priority is served first: the lower one keeps a trickle and one in flight',
    R50,
    [{ ...claim('urgent'), priority: 1 }, claim('later')],
    { urgent: [50, 100], later: [0.5, 1] },
  ],
  [
    'what a higher priority cannot use goes to the lower ones, by weight',
    R50,
    [{ ...claim('urgent', 40), perSecond: 20, priority: 5 }, claim('x', 200, 2), claim('y')],
    { urgent: [20, 40], x: [20, 40], y: [10, 20] },
  ],
  [
    'equal priorities are the plain weighted split',
    R50,
    [
      { ...claim('a', 200, 3), priority: 2 },
      { ...claim('b'), priority: 2 },
    ],
    { a: [37.5, 75], b: [12.5, 25] },
  ],
  [
    'every campaign wanting less than its part leaves the rest unused',
    R50,
    [claim('a', 5), claim('b', 5)],
    { a: [25, 5], b: [25, 5] },
  ],
];

describe('sharesOf', () => {
  it.each(situations)('%s', (_, limits, claims, expected) => {
    const shares = sharesOf(limits, claims);
    const got = Object.fromEntries(
      [...shares].map(([id, s]) => [id, [Number(s.createsPerSecond.toFixed(6)), s.maxInFlight]]),
    );
    const want = Object.fromEntries(
      Object.entries(expected).map(([id, [r, c]]) => [id, [Number(r.toFixed(6)), c]]),
    );
    expect(got).toEqual(want);
  });

  it('does not depend on the order campaigns joined in', () => {
    const claims = [claim('c', 7), claim('a', 30, 2), claim('b')];
    const forward = sharesOf({ createsPerSecond: 7, maxInFlight: 11 }, claims);
    const backward = sharesOf({ createsPerSecond: 7, maxInFlight: 11 }, [...claims].reverse());
    expect([...backward]).toEqual([...forward]);
  });
});

describe('waterFill and wholeParts', () => {
  it.each([
    [
      'no cap: by weight',
      12,
      [
        { weight: 1, cap: Infinity },
        { weight: 2, cap: Infinity },
      ],
      [4, 8],
    ],
    [
      'a capped claim passes its surplus on',
      12,
      [
        { weight: 1, cap: 2 },
        { weight: 1, cap: Infinity },
      ],
      [2, 10],
    ],
    [
      'everything capped below the total',
      12,
      [
        { weight: 1, cap: 2 },
        { weight: 1, cap: 3 },
      ],
      [2, 3],
    ],
  ] as const)('%s', (_, total, claims, parts) => {
    expect(waterFill(total, [...claims])).toEqual(parts);
  });

  it.each([
    ['exact parts stay', 6, [2, 4], [2, 4]],
    ['the largest remainder gets the spare one', 10, [3.3, 3.3, 3.4], [3, 3, 4]],
    ['ties go to the earlier part', 10, [10 / 3, 10 / 3, 10 / 3], [4, 3, 3]],
    ['parts well under the total round up, never past their ceiling', 10, [1.5, 2.5], [2, 3]],
  ] as const)('%s', (_, total, parts, whole) => {
    expect(wholeParts(total, [...parts])).toEqual(whole);
  });
});

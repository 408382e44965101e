/**
 * The rate governor's decisions through its engine (workflows/governor/engine/step.ts) as tables:
 * which campaigns are told which share after which messages, the pause a 429 asks of the others,
 * the refresh, the end with no campaign left, and what a campaign's first run runs on
 * (engine/first-share.ts). How the key's limits are split is governor-shares.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import type { ServiceLimits } from '../../contract/campaign.ts';
import type { Claim } from '../../contract/governor-messages.ts';
import type { GovernorEffect } from '../../workflows/governor/engine/effects.ts';
import type { GovernorEvent } from '../../workflows/governor/engine/events.ts';
import { firstShareOf } from '../../workflows/governor/engine/first-share.ts';
import { carry, due, type GovernorState, openGovernor } from '../../workflows/governor/engine/state.ts';
import { step } from '../../workflows/governor/engine/step.ts';

const LIMITS: ServiceLimits = { createsPerSecond: 10, maxInFlight: 20 };
const claim = (campaign: string, wants = 50): Claim => ({ campaign, weight: 1, wants });
const join = (campaign: string): GovernorEvent => ({ kind: 'join', claim: claim(campaign) });
const limits = (l: ServiceLimits = LIMITS): GovernorEvent => ({ kind: 'limits', limits: l });
const woken: GovernorEvent = { kind: 'round', woken: true };
const quiet: GovernorEvent = { kind: 'round', woken: false };

/** Runs `events` from a new governor; the effects of the last one, as short strings. */
function played(events: readonly GovernorEvent[], from: GovernorState = openGovernor()) {
  let state = from;
  let effects: GovernorEffect[] = [];
  for (const event of events) ({ state, effects } = step(state, event));
  return { state, told: effects.map(show) };
}

function show(effect: GovernorEffect): string {
  if (effect.kind === 'share')
    return `${effect.campaign} ${effect.share.createsPerSecond}/s ${effect.share.maxInFlight} pause ${effect.share.pauseMs}`;
  return effect.kind === 'log' ? `log ${effect.message}` : 'end';
}

describe('the governor, event by event', () => {
  it.each<[string, GovernorEvent[], string[]]>([
    ['a campaign joins: its share at the next round', [limits(), join('a'), woken], ['a 10/s 20 pause 0']],
    ['no limits read yet: nobody is told anything', [join('a'), woken], []],
    [
      'a second campaign: both told their halves',
      [limits(), join('a'), woken, join('b'), woken],
      ['a 5/s 10 pause 0', 'b 5/s 10 pause 0'],
    ],
    ['a round with nothing new tells nobody again', [limits(), join('a'), woken, woken], []],
    [
      'a leave: the other gets it all',
      [limits(), join('a'), join('b'), woken, { kind: 'leave', campaign: 'b' }, woken],
      ['a 10/s 20 pause 0'],
    ],
    [
      'a campaign gone (a send failed): the same',
      [limits(), join('a'), join('b'), woken, { kind: 'gone', campaign: 'b' }, woken],
      ['a 10/s 20 pause 0'],
    ],
    [
      'a 429: the others hold as long as it was told; it paused itself',
      [
        limits(),
        join('a'),
        join('b'),
        woken,
        { kind: 'throttled', throttle: { campaign: 'a', retryAfterMs: 2_000 } },
        woken,
      ],
      ['b 5/s 10 pause 2000'],
    ],
    [
      'a rate need below the fair part: the rest goes to the other',
      [limits(), join('a'), join('b'), woken, { kind: 'need', campaign: 'a', perSecond: 2 }, woken],
      ['a 2/s 10 pause 0', 'b 8/s 10 pause 0'],
    ],
    [
      'a need from a campaign not on the key changes nothing',
      [limits(), join('a'), woken, { kind: 'need', campaign: 'x', perSecond: 1 }, woken],
      [],
    ],
    ['the same limits again change nothing', [limits(), join('a'), woken, limits(), woken], []],
    [
      'new limits: logged, and shares follow',
      [limits(), join('a'), woken, limits({ createsPerSecond: 4, maxInFlight: 8 })],
      ['log service limits changed'],
    ],
    [
      'a wait that ran its length is the refresh: every share again',
      [limits(), join('a'), woken, quiet],
      ['a 10/s 20 pause 0'],
    ],
    [
      'a whole idle wait with no campaign: the governor ends',
      [limits(), join('a'), woken, { kind: 'leave', campaign: 'a' }, woken, quiet],
      ['end'],
    ],
  ])('%s', (_, events, told) => {
    expect(played(events).told).toEqual(told);
  });

  it('is due after a change or a 429, not after a round', () => {
    const { state } = played([limits(), join('a'), woken]);
    expect(due(state)).toBe(false);
    expect(
      due(played([{ kind: 'throttled', throttle: { campaign: 'a', retryAfterMs: 1 } }], state).state),
    ).toBe(true);
    expect(due(played([join('b')], state).state)).toBe(true);
  });

  it('a new run from what the last carried checks its shares once and tells only what changed', () => {
    const { state } = played([limits(), join('a'), join('b'), woken]);
    const carried = JSON.parse(JSON.stringify(carry(state)));
    const next = openGovernor(carried);
    expect(due(next)).toBe(true);
    expect(played([woken], next).told).toEqual([]);
    expect(played([{ kind: 'leave', campaign: 'b' }, woken], next).told).toEqual(['a 10/s 20 pause 0']);
  });
});

describe('a campaign’s first share', () => {
  it.each([
    [
      'alone on the key: the whole rate, nobody else creating',
      { ...LIMITS, pauseMs: 0 },
      { kind: 'shared', limits: LIMITS, joinedOthers: false },
    ],
    [
      'beside others: its part, and others are creating',
      { createsPerSecond: 5, maxInFlight: 10, pauseMs: 0 },
      { kind: 'shared', limits: { createsPerSecond: 5, maxInFlight: 10 }, joinedOthers: true },
    ],
    [
      'no share in time: alone on the limits it read, with a warning',
      null,
      { kind: 'alone', warning: 'rate governor did not answer: creating on the service limits alone' },
    ],
  ])('%s', (_, share, first) => {
    expect(firstShareOf(LIMITS, share)).toEqual(first);
  });
});

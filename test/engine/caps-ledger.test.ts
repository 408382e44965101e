/**
 * The caps ledger's decisions (workflows/caps/engine/step.ts) as tables: grants in whole jobs within
 * every cap, held asks and what frees them (a raised cap, a campaign leaving, the day or month
 * turning), spend by period and model, and each threshold alerted once per period.
 */
import { describe, expect, it } from 'vitest';
import { capDollars, capLine } from '../../contract/caps.ts';
import { committedOf } from '../../workflows/caps/engine/state.ts';
import { alertsOf as alerts, grantsOf as grants, LedgerDriver } from './caps-ledger-driver.ts';

const $ = (dollars: number) => Math.round(dollars * 1_000_000);
const NOV_27 = Date.UTC(2026, 10, 27, 9);
const NOV_28 = Date.UTC(2026, 10, 28, 0, 0, 1);
const DEC_1 = Date.UTC(2026, 11, 1, 0, 0, 1);

function ledgerWith(caps: {
  daily?: number;
  monthly?: number;
  models?: Record<string, number | undefined>;
}): LedgerDriver {
  const ledger = LedgerDriver.at(NOV_27);
  ledger.setCaps(
    {
      daily: caps.daily === undefined ? null : $(caps.daily),
      monthly: caps.monthly === undefined ? null : $(caps.monthly),
      models: Object.fromEntries(Object.entries(caps.models ?? {}).map(([m, d]) => [m, $(d ?? 0)])),
    },
    NOV_27,
  );
  return ledger;
}

const ask = (campaign: string, unit: number, count: number, model = 'I4', priority?: number) => ({
  campaign,
  model,
  unit: $(unit),
  count,
  ...(priority !== undefined && { priority }),
});

describe('caps ledger: grants', () => {
  it.each([
    // caps, ask unit × count → granted micros (whole units only), or held by which cap
    { caps: {}, unit: 1, count: 10, granted: $(10), held: null },
    { caps: { monthly: 10 }, unit: 1, count: 4, granted: $(4), held: null },
    { caps: { monthly: 10 }, unit: 3, count: 10, granted: $(9), held: null },
    { caps: { monthly: 10, daily: 5 }, unit: 2, count: 10, granted: $(4), held: null },
    { caps: { daily: 1 }, unit: 2, count: 1, granted: 0, held: 'daily' },
    { caps: { models: { I4: 1 } }, unit: 2, count: 1, granted: 0, held: 'monthly' },
    { caps: { models: { V4: 1 } }, unit: 2, count: 3, granted: $(6), held: null },
  ])(
    '$caps: $count jobs of $unit dollars → $granted micros, held by $held',
    ({ caps, unit, count, granted, held }) => {
      const ledger = ledgerWith(caps);
      expect(grants(ledger.ask(ask('a', unit, count), NOV_27))).toEqual([['a', 'I4', granted, held]]);
    },
  );

  it('two campaigns never reserve past the cap together; the second is held with the cap and what was spent', () => {
    const ledger = ledgerWith({ monthly: 1 });
    expect(grants(ledger.ask(ask('a', 0.3, 2), NOV_27))).toEqual([['a', 'I4', $(0.6), null]]);
    expect(grants(ledger.ask(ask('b', 0.3, 2), NOV_27))).toEqual([['b', 'I4', $(0.3), null]]);
    const held = ledger.ask(ask('b', 0.3, 2), NOV_27);
    expect(grants(held)).toEqual([['b', 'I4', 0, 'monthly']]);
    expect(committedOf(ledger.state, { model: null })).toBe($(0.9));
    // a spends 0.6 of its reservation: still 0.1 of room, not a whole job.
    ledger.spent('a', { I4: $(0.6) }, NOV_27);
    expect(ledger.state.monthSpent + committedOf(ledger.state, { model: null })).toBe($(0.9));
  });

  it('a held ask is served when the cap is raised, highest priority first', () => {
    const ledger = ledgerWith({ monthly: 1 });
    ledger.ask(ask('a', 1, 1), NOV_27);
    ledger.ask(ask('low', 1, 1, 'I4', 0), NOV_27);
    ledger.ask(ask('high', 1, 1, 'I4', 5), NOV_27);
    const raised = ledger.setCaps({ daily: null, monthly: $(2), models: {} }, NOV_27);
    // The one still held is told its cap's new line.
    expect(grants(raised)).toEqual([
      ['high', 'I4', $(1), null],
      ['low', 'I4', 0, 'monthly'],
    ]);
    expect(ledger.state.held.map((h) => h.campaign)).toEqual(['low']);
  });

  it('a leaving campaign gives back what it did not spend, and a held ask takes it', () => {
    const ledger = ledgerWith({ monthly: 1 });
    ledger.ask(ask('a', 0.5, 2), NOV_27);
    ledger.ask(ask('b', 0.5, 1), NOV_27);
    const out = ledger.leave('a', { I4: $(0.5) }, NOV_27);
    expect(grants(out)).toEqual([['b', 'I4', $(0.5), null]]);
    expect(ledger.state.monthSpent).toBe($(0.5));
  });

  it('the day turning frees a daily cap; the month turning frees a monthly one', () => {
    const ledger = ledgerWith({ daily: 1, monthly: 1.5 });
    ledger.ask(ask('a', 1, 1), NOV_27);
    ledger.spent('a', { I4: $(1) }, NOV_27);
    expect(grants(ledger.ask(ask('a', 1, 1), NOV_27))).toEqual([['a', 'I4', 0, 'daily']]);
    // A new day: the daily cap has room, the monthly only 0.5 (not a whole job): now it holds.
    expect(grants(ledger.turn(NOV_28))).toEqual([['a', 'I4', 0, 'monthly']]);
    expect(ledger.state.daySpent).toBe(0);
    expect(ledger.state.monthSpent).toBe($(1));
    expect(grants(ledger.turn(DEC_1))).toEqual([['a', 'I4', $(1), null]]);
  });
});

describe('caps ledger: alerts at 50, 80 and 100 %', () => {
  it('each threshold once per period, for the caps whose spend crossed it', () => {
    const ledger = ledgerWith({ monthly: 10, models: { V4: 4 } });
    ledger.ask(ask('a', 1, 10, 'V4'), NOV_27);
    expect(alerts(ledger.spent('a', { V4: $(2) }, NOV_27))).toEqual(['monthly:V4:50']);
    expect(alerts(ledger.spent('a', { V4: $(1) }, NOV_27))).toEqual([]);
    expect(alerts(ledger.spent('a', { V4: $(2) }, NOV_27))).toEqual([
      'monthly:*:50',
      'monthly:V4:80',
      'monthly:V4:100',
    ]);
    expect(alerts(ledger.spent('a', { I4: $(3.5) }, NOV_27))).toEqual(['monthly:*:80']);
  });

  it('a cap that holds a campaign alerts its 100 % even when spend stops short of it', () => {
    const ledger = ledgerWith({ daily: 1 });
    ledger.ask(ask('a', 0.6, 1), NOV_27);
    expect(alerts(ledger.ask(ask('b', 0.6, 1), NOV_27))).toEqual(['daily:*:100']);
    expect(alerts(ledger.ask(ask('c', 0.6, 1), NOV_27))).toEqual([]);
  });

  it('a new day alerts the daily cap again, not the monthly one', () => {
    const ledger = ledgerWith({ daily: 2, monthly: 100 });
    ledger.ask(ask('a', 1, 1), NOV_27);
    expect(alerts(ledger.spent('a', { I4: $(1) }, NOV_27))).toEqual(['daily:*:50']);
    ledger.ask(ask('a', 1, 1), NOV_28);
    expect(alerts(ledger.spent('a', { I4: $(1) }, NOV_28))).toEqual(['daily:*:50']);
  });
});

describe('the held line', () => {
  it.each([
    [
      { cap: 'monthly' as const, model: null, limit: $(5000), spent: $(4987.2) },
      'monthly $5,000 (spent $4,987.20)',
    ],
    [{ cap: 'daily' as const, model: null, limit: $(800), spent: $(799.994) }, 'daily $800 (spent $799.99)'],
    [
      { cap: 'monthly' as const, model: 'V4', limit: $(2000), spent: $(1990) },
      'monthly V4 $2,000 (spent $1,990)',
    ],
    [
      { cap: 'daily' as const, model: null, limit: $(3), spent: $(0.48), committed: $(2.5) },
      'daily $3 (spent $0.48 + $2.50 committed by running campaigns)',
    ],
    [{ cap: 'daily' as const, model: null, limit: $(3), spent: $(3), committed: 0 }, 'daily $3 (spent $3)'],
  ])('%o reads %s', (hold, line) => {
    expect(capLine(hold)).toBe(line);
  });
  it('groups thousands', () => expect(capDollars($(1234567.5))).toBe('$1,234,567.50'));
});

describe('caps ledger: notes that name their execution', () => {
  const runAsk = (campaign: string, run: string, seq: number, unit: number, count: number) => ({
    ...ask(campaign, unit, count),
    run,
    seq,
  });

  it('a leave before the last report: the report books nothing twice, and the freed room goes to the waiting campaign', () => {
    const ledger = ledgerWith({ daily: 1 });
    ledger.ask(runAsk('a', 'ra', 0, 0.25, 4), NOV_27);
    expect(grants(ledger.ask(runAsk('b', 'rb', 0, 0.25, 2), NOV_27))).toEqual([['b', 'I4', 0, 'daily']]);
    // a spent 0.75 in all; its report of 0.5 is still under way when its leave (0.75) lands.
    const leave = { campaign: 'a', run: 'ra', spent: { I4: $(0.25) }, total: { I4: $(0.75) } };
    expect(grants(ledger.note('leave', leave, NOV_27))).toEqual([['b', 'I4', $(0.25), null]]);
    const late = { campaign: 'a', run: 'ra', spent: { I4: $(0.5) }, total: { I4: $(0.5) } };
    expect(ledger.note('spent', late, NOV_27)).toEqual([]);
    expect(ledger.state.daySpent).toBe($(0.75));
    expect(ledger.state.daySpent + committedOf(ledger.state, { model: null })).toBe($(1));
  });

  it.each([
    { note: 'the same report twice', reports: [0.5, 0.5], spent: 0.5 },
    { note: 'reports out of order', reports: [0.75, 0.5], spent: 0.75 },
    { note: 'reports in order', reports: [0.25, 0.5, 0.75], spent: 0.75 },
  ])('$note: spent is the highest total', ({ reports, spent }) => {
    const ledger = ledgerWith({ monthly: 10 });
    ledger.ask(runAsk('a', 'ra', 0, 0.25, 4), NOV_27);
    for (const total of reports)
      ledger.note('spent', { campaign: 'a', run: 'ra', spent: {}, total: { I4: $(total) } }, NOV_27);
    expect(ledger.state.monthSpent).toBe($(spent));
    expect(committedOf(ledger.state, { model: null })).toBe($(1) - $(spent));
  });

  it('an ask already answered, or from an execution that left, is not granted again', () => {
    const ledger = ledgerWith({ monthly: 10 });
    expect(grants(ledger.ask(runAsk('a', 'ra', 0, 1, 2), NOV_27))).toEqual([['a', 'I4', $(2), null]]);
    expect(grants(ledger.ask(runAsk('a', 'ra', 0, 1, 2), NOV_27))).toEqual([]);
    ledger.note('leave', { campaign: 'a', run: 'ra', spent: {}, total: {} }, NOV_27);
    expect(grants(ledger.ask(runAsk('a', 'ra', 1, 1, 2), NOV_27))).toEqual([]);
    // The same workflow id run again is a new execution: served.
    expect(grants(ledger.ask(runAsk('a', 'ra2', 0, 1, 1), NOV_27))).toEqual([['a', 'I4', $(1), null]]);
    expect(committedOf(ledger.state, { model: null })).toBe($(1));
  });

  it('a grant says the execution and its total granted, so a repeated one adds nothing on the campaign side', () => {
    const ledger = ledgerWith({ monthly: 10 });
    ledger.ask(runAsk('a', 'ra', 0, 1, 2), NOV_27);
    const [second] = ledger.ask(runAsk('a', 'ra', 1, 1, 3), NOV_27);
    expect(second).toEqual({
      kind: 'grant',
      campaign: 'a',
      grant: { model: 'I4', micros: $(3), hold: null, run: 'ra', granted: $(5) },
    });
  });

  it('reservation given back is free for others at once', () => {
    const ledger = ledgerWith({ daily: 2 });
    ledger.ask(runAsk('a', 'ra', 0, 0.12, 16), NOV_27);
    expect(grants(ledger.ask(runAsk('b', 'rb', 0, 0.12, 4), NOV_27))).toEqual([['b', 'I4', 0, 'daily']]);
    // a's 12 recorded stills cost nothing: it spent 0.48 on its 4 new ones and needs no more.
    const back = { campaign: 'a', run: 'ra', spent: {}, total: { I4: $(0.48) }, returned: { I4: $(1.44) } };
    expect(grants(ledger.note('spent', back, NOV_27))).toEqual([['b', 'I4', $(0.48), null]]);
    expect(committedOf(ledger.state, { model: null })).toBe($(0.48));
  });

  it('a hold says what running campaigns have committed under the cap, so a cap held at little spent reads true', () => {
    const ledger = ledgerWith({ daily: 3 });
    ledger.ask(runAsk('a', 'ra', 0, 1, 2), NOV_27);
    ledger.note('spent', { campaign: 'a', run: 'ra', spent: {}, total: { I4: $(0.5) } }, NOV_27);
    const [held] = ledger.ask(runAsk('b', 'rb', 0, 1.5, 1), NOV_27);
    expect(held).toMatchObject({
      kind: 'grant',
      grant: { micros: 0, hold: { spent: $(0.5), committed: $(1.5) } },
    });
    expect(held?.kind === 'grant' && held.grant.hold && capLine(held.grant.hold)).toBe(
      'daily $3 (spent $0.50 + $1.50 committed by running campaigns)',
    );
  });

  it('the 100 % alert of a cap that holds says what is committed under it, not only what is spent', () => {
    const ledger = ledgerWith({ daily: 1 });
    ledger.ask(runAsk('a', 'ra', 0, 0.6, 1), NOV_27);
    const [, alert] = ledger.ask(runAsk('b', 'rb', 0, 0.6, 1), NOV_27);
    expect(alert).toMatchObject({ kind: 'alert', alert: { percent: 100, spent: 0, committed: $(0.6) } });
  });
});

describe('caps ledger: the key’s real spend, from the service’s account usage', () => {
  const read = (ledger: LedgerDriver, total: number, at: number, models: Record<string, number> = {}) =>
    ledger.on({
      kind: 'usage-read',
      usage: {
        total: $(total),
        models: Object.fromEntries(Object.entries(models).map(([m, d]) => [m, $(d)])),
      },
      at,
    });

  it('counts what the key spent before the cap was set: a daily cap of $20 after $14.51', () => {
    const ledger = ledgerWith({ daily: 20 });
    read(ledger, 14.51, NOV_27, { I4: 14.51 });
    expect(ledger.state.daySpent).toBe($(14.51));
    expect(ledger.state.modelSpent).toEqual({ I4: $(14.51) });
    // $5.49 of room: five $1 jobs, not twenty.
    expect(grants(ledger.ask(ask('a', 1, 20), NOV_27))).toEqual([['a', 'I4', $(5), null]]);
  });

  it('never lowers what campaigns reported; a later reading adds what other tools spent', () => {
    const ledger = ledgerWith({ monthly: 100 });
    ledger.ask(ask('a', 1, 5), NOV_27);
    ledger.spent('a', { I4: $(5) }, NOV_27);
    read(ledger, 3, NOV_27);
    expect(ledger.state.monthSpent).toBe($(5));
    read(ledger, 9, NOV_27);
    expect(ledger.state.monthSpent).toBe($(9));
  });

  it('a new day is measured from the last reading before it began', () => {
    const ledger = ledgerWith({ daily: 100, monthly: 100 });
    read(ledger, 10, NOV_27);
    read(ledger, 12, NOV_28);
    expect(ledger.state.daySpent).toBe($(2));
    expect(ledger.state.monthSpent).toBe($(12));
    expect(ledger.state.usage).toMatchObject({ dayKnown: true, monthKnown: false });
    read(ledger, 13, NOV_28);
    expect(ledger.state.daySpent).toBe($(3));
  });
});

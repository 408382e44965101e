/**
 * A newer engine's caps ledger continues an older one's from its memo (workflows/caps/engine/adopt.ts):
 * what an upgrade must not lose is the caps and the period's spend, or campaigns would run past
 * caps the user set before upgrading.
 */
import { describe, expect, it } from 'vitest';
import { NO_CAPS } from '../../contract/caps.ts';
import type { CapsView } from '../../contract/caps-view.ts';
import { adoptedLedger } from '../../workflows/caps/engine/adopt.ts';
import { viewOf } from '../../workflows/caps/engine/view.ts';
import { alertsOf, grantsOf, LedgerDriver } from './caps-ledger-driver.ts';

const $ = (dollars: number) => Math.round(dollars * 1_000_000);
const NOV_27 = Date.UTC(2026, 10, 27, 9);
const NOV_27_LATER = Date.UTC(2026, 10, 27, 15);
const NOV_28 = Date.UTC(2026, 10, 28, 0, 0, 1);
const DEC_1 = Date.UTC(2026, 11, 1, 0, 0, 1);

/** An older ledger: a $10 monthly cap and a $4 V4 cap; campaign `a` spent $6 on I4 and $3 on V4, and holds $1 more. */
function olderView(): CapsView {
  const ledger = LedgerDriver.at(NOV_27);
  ledger.setCaps({ ...NO_CAPS, monthly: $(10), models: { V4: $(4) } }, NOV_27);
  ledger.ask({ campaign: 'a', model: 'I4', unit: $(1), count: 7 }, NOV_27);
  ledger.ask({ campaign: 'a', model: 'V4', unit: $(1), count: 3 }, NOV_27);
  ledger.spent('a', { I4: $(6), V4: $(3) }, NOV_27);
  return viewOf(ledger.state);
}

/** Engine 2's memo: no `spent`, only the capped lines. */
function engine2(view: CapsView): CapsView {
  const { spent: _, ...shown } = view;
  return shown;
}

const grants = (outs: Parameters<typeof grantsOf>[0]) => grantsOf(outs).map(([, ...rest]) => rest);
const alerts = alertsOf;

describe.each([
  ['engine 2 (capped lines only)', engine2],
  ['engine 3 and later (every spend)', (view: CapsView) => view],
])('a newer engine takes over the caps ledger of %s', (_, memoOf) => {
  it('keeps the caps and the month’s spend: a new run is granted only what is left under them', () => {
    const ledger = new LedgerDriver(adoptedLedger(memoOf(olderView()), NOV_27_LATER));
    expect(ledger.state.caps).toEqual({ ...NO_CAPS, monthly: $(10), models: { V4: $(4) } });
    // $9 spent of $10: one $1 job fits; V4 has $1 left of its $4.
    expect(grants(ledger.ask({ campaign: 'b', model: 'I4', unit: $(1), count: 5 }, NOV_27_LATER))).toEqual([
      ['I4', $(1), null],
    ]);
    expect(grants(ledger.ask({ campaign: 'c', model: 'V4', unit: $(1), count: 2 }, NOV_27_LATER))).toEqual([
      ['V4', 0, 'monthly'],
    ]);
  });

  it('drops the older runs’ reservations (their new runs ask again) and sends no alert twice', () => {
    const adopted = adoptedLedger(memoOf(olderView()), NOV_27_LATER);
    expect(adopted.reserved).toEqual({});
    expect(adopted.held).toEqual([]);
    const ledger = new LedgerDriver(adopted);
    ledger.ask({ campaign: 'b', model: 'I4', unit: $(0.5), count: 2 }, NOV_27_LATER);
    // $9.50 of $10: past 80 % already (alerted by the older ledger), not yet 100 %.
    expect(alerts(ledger.spent('b', { I4: $(0.5) }, NOV_27_LATER))).toEqual([]);
    expect(alerts(ledger.spent('b', { I4: $(0.5) }, NOV_27_LATER))).toEqual(['monthly:*:100']);
  });

  it('a ledger last shown in an earlier month carries its caps, not its spend', () => {
    const adopted = adoptedLedger(memoOf(olderView()), DEC_1);
    expect(adopted).toMatchObject({ month: '2026-12', monthSpent: 0, modelSpent: {}, alerted: [] });
    expect(adopted.caps.monthly).toBe($(10));
  });
});

describe('what only a memo with every spend carries over', () => {
  it('the day’s spend no cap watched: a daily cap set after the upgrade counts it', () => {
    const view = olderView();
    const later = new LedgerDriver(adoptedLedger(view, NOV_27_LATER));
    later.setCaps({ ...later.state.caps, daily: $(10) }, NOV_27_LATER);
    expect(later.state.daySpent).toBe($(9));
    // Engine 2 showed no daily line: that spend is unknown, taken as 0.
    const fromEngine2 = new LedgerDriver(adoptedLedger(engine2(view), NOV_27_LATER));
    expect(fromEngine2.state.daySpent).toBe(0);
    // The next day starts at 0 either way.
    expect(adoptedLedger(view, NOV_28).daySpent).toBe(0);
  });
});

/** `caps set|clear` arguments as the new caps, and `caps show`'s text (cli/commands/caps.ts). */
import { describe, expect, it } from 'vitest';
import { textOf, withCleared, withSet } from '../../cli/commands/caps.ts';
import { UserError } from '../../cli/errors.ts';
import { NO_CAPS } from '../../contract/caps.ts';

const $ = (d: number) => d * 1_000_000;

describe('caps set and clear', () => {
  it('set takes dollars, keeps what it was not given, and a model per --model', () => {
    const first = withSet(NO_CAPS, { monthly: '5000', daily: '800', model: ['V4=2000'] });
    expect(first).toEqual({ daily: $(800), monthly: $(5000), models: { V4: $(2000) } });
    expect(withSet(first, { daily: '900', model: ['I4=10.5'] })).toEqual({
      daily: $(900),
      monthly: $(5000),
      models: { V4: $(2000), I4: $(10.5) },
    });
  });

  it.each([
    [{ model: [] }, 'no cap given'],
    [{ monthly: 'lots', model: [] }, 'not an amount'],
    [{ daily: '0', model: [] }, 'more than $0'],
    [{ model: ['V9=10'] }, 'no such model'],
    [{ model: ['V4'] }, 'LABEL=USD'],
  ])('set %j is refused (%s)', (options, words) => {
    expect(() => withSet(NO_CAPS, options)).toThrow(UserError);
    expect(() => withSet(NO_CAPS, options)).toThrow(words);
  });

  it('clear removes all, or only those named', () => {
    const caps = { daily: $(800), monthly: $(5000), models: { V4: $(2000), I4: $(5) } };
    expect(withCleared(caps, { model: [] })).toEqual(NO_CAPS);
    expect(withCleared(caps, { daily: true, model: ['V4'] })).toEqual({
      daily: null,
      monthly: $(5000),
      models: { I4: $(5) },
    });
  });
});

describe('caps show', () => {
  it('each cap with spent, committed and the part used; the campaigns held', () => {
    const text = textOf({
      caps: { daily: null, monthly: $(5000), models: { V4: $(2000) } },
      day: '2026-11-27',
      month: '2026-11',
      lines: [
        { cap: 'monthly', model: null, limit: $(5000), spent: 4_987_200_000, committed: 0 },
        { cap: 'monthly', model: 'V4', limit: $(2000), spent: $(1200), committed: 12_500_000 },
      ],
      held: ['mediaflow-spring'],
      committedBy: {},
    });
    expect(text.split('\n')).toEqual([
      'spend caps on this API key (day 2026-11-27, month 2026-11 UTC):',
      '  monthly     $5,000  spent $4,987.20  committed $0      99.7 %',
      '  monthly V4  $2,000  spent $1,200     committed $12.50  60.6 %',
      'held by a cap (paused): spring',
      "spent: what campaigns on this key reported (the service's account usage not read yet)",
    ]);
    expect(textOf(null)).toBe('no spend caps on this API key');
  });

  it('says where the spend comes from: the service’s account usage, and since when', () => {
    const view = {
      caps: { daily: $(2), monthly: null, models: {} },
      day: '2026-11-27',
      month: '2026-11',
      lines: [{ cap: 'daily' as const, model: null, limit: $(2), spent: $(14.51), committed: 0 }],
      held: [],
      committedBy: {},
    };
    const at = Date.UTC(2026, 10, 27, 9, 30);
    const first = { at, day: '2026-11-27', dayKnown: false, monthKnown: false };
    expect(
      textOf({ ...view, usage: first })
        .split('\n')
        .at(-1),
    ).toBe(
      "spent: the service's account usage read 2026-11-27 09:30 UTC (with no reading from before this period, all the key ever spent counts), and campaigns' reports since",
    );
    const later = { ...first, dayKnown: true, monthKnown: true };
    expect(
      textOf({ ...view, usage: later })
        .split('\n')
        .at(-1),
    ).toBe(
      "spent: the service's account usage read 2026-11-27 09:30 UTC (the day and month measured from earlier readings), and campaigns' reports since",
    );
  });
});

/**
 * The key's real spend (docs/caps.md, "Spend the ledger did not see"): the service's account usage
 * counts what the key spent with any tool, before a cap was set too. The service reports it as
 * totals so far, with no period, so a period's spend is the total less the total read before the
 * period began; with no earlier reading, the whole total counts (all the key ever spent, an
 * overcount that only holds campaigns sooner). The ledger's spend is never lowered by a reading:
 * what campaigns reported after the service counted it stays counted.
 */
import type { AccountUsage } from '../../../contract/caps-messages.ts';
import type { Draft } from './draft.ts';
import type { UsageSeen } from './state.ts';

export type { AccountUsage };

export function seeded(d: Draft, usage: AccountUsage, at: number): void {
  const prev = d.usage;
  const sameDay = prev !== undefined && prev.day === d.day;
  const sameMonth = prev !== undefined && prev.month === d.month;
  const seen: UsageSeen = {
    day: d.day,
    month: d.month,
    dayBase: sameDay ? prev.dayBase : (prev?.last.total ?? 0),
    monthBase: sameMonth ? prev.monthBase : (prev?.last.total ?? 0),
    modelBase: sameMonth ? prev.modelBase : (prev?.last.models ?? {}),
    dayKnown: sameDay ? prev.dayKnown : prev !== undefined,
    monthKnown: sameMonth ? prev.monthKnown : prev !== undefined,
    last: usage,
    at,
  };
  d.usage = seen;
  d.daySpent = Math.max(d.daySpent, usage.total - seen.dayBase);
  d.monthSpent = Math.max(d.monthSpent, usage.total - seen.monthBase);
  for (const [model, micros] of Object.entries(usage.models))
    d.modelSpent[model] = Math.max(d.modelSpent[model] ?? 0, micros - (seen.modelBase[model] ?? 0));
}

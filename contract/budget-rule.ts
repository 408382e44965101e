/**
 * The budget rule (ARCHITECTURE.md, decision 4), once: money `usd` more fits a budget when what is
 * spent and committed beside it stays within `budget.max_usd`. The reducer (state/budget.ts) asks
 * it for every job and every review decision, preflight and estimate for the plan's price, and
 * validate for the catalogue's. Pure: the workflow bundle imports it.
 */
import type { Micros } from '../api/money.ts';

/** Null `limit`: the spec sets no budget. `taken`: spent plus committed already. */
export function fitsBudget(limit: Micros | null, usd: Micros, taken: Micros = 0): boolean {
  return limit === null || taken + usd <= limit;
}

/**
 * Money of one campaign run, exact in micro-dollars (decision 4): what the service charged, and
 * what the jobs being created or in flight may still cost. Spent + committed never passes the
 * budget (contract/budget-rule.ts). Why submission stopped is money/stop.ts's.
 *
 * Plain data (the model is one JSON object) with free functions over it.
 */
import type { Micros } from '../../../api/money.ts';
import { fitsBudget } from '../../../contract/budget-rule.ts';

export interface BudgetState {
  committed: Micros;
  readonly limit: Micros | null;
  spent: Micros;
}

export function newBudget(limit: Micros | null, spent: Micros): BudgetState {
  return { committed: 0, limit, spent };
}

/** Would a job of this price, next to `alsoCommitted` more, still fit? */
export function fits(b: BudgetState, usd: Micros, alsoCommitted: Micros = 0): boolean {
  return fitsBudget(b.limit, usd, b.spent + b.committed + alsoCommitted);
}

export function commit(b: BudgetState, usd: Micros): void {
  b.committed += usd;
}

export function release(b: BudgetState, usd: Micros): void {
  b.committed -= usd;
}

export function charge(b: BudgetState, usd: Micros): void {
  b.spent += usd;
}

/**
 * Money of one campaign run, exact in micro-dollars (decision 4): what the service charged, and
 * what the jobs being created or in flight may still cost. Spent + committed never passes the
 * budget (contract/budget-rule.ts). Why submission stopped is state/stop.ts's.
 */
import type { Micros } from '../../api/money.ts';
import { fitsBudget } from '../../contract/budget-rule.ts';

export class Budget {
  committed: Micros = 0;
  readonly limit: Micros | null;
  spent: Micros;

  constructor(limit: Micros | null, spent: Micros) {
    this.limit = limit;
    this.spent = spent;
  }

  /** Would a job of this price, next to `alsoCommitted` more, still fit? */
  fits(usd: Micros, alsoCommitted: Micros = 0): boolean {
    return fitsBudget(this.limit, usd, this.spent + this.committed + alsoCommitted);
  }

  commit(usd: Micros): void {
    this.committed += usd;
  }

  release(usd: Micros): void {
    this.committed -= usd;
  }

  charge(usd: Micros): void {
    this.spent += usd;
  }
}

/**
 * What a card says a job cost: what was paid for it, in all its takes, once it was made; its price
 * while it may still be made; nothing for a job that never will be (a skipped clip, its still
 * rejected, was never created, so it cost nothing). Pure; tested as a table
 * (test/review/report-money.test.ts).
 */
import { formatDollars } from '../api/money.ts';
import type { Item } from './model.ts';

export function costLine(item: Pick<Item, 'state' | 'usd' | 'takeUsd' | 'paidUsd'>): string {
  if (item.paidUsd > 0) {
    // A retaken job paid for each take: both figures, labelled, so neither reads as the other.
    return item.paidUsd > item.takeUsd && item.takeUsd > 0
      ? `this take ${formatDollars(item.takeUsd)}, ${formatDollars(item.paidUsd)} with retakes`
      : formatDollars(item.paidUsd);
  }
  if (item.state === 'skipped') return 'no cost (not made)';
  return item.usd === null ? 'priced by the service' : formatDollars(item.usd);
}

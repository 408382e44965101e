/**
 * A cap's thresholds (50, 80, 100 %), each alerted once per period to the campaign whose spend
 * crossed it (or, for 100 %, that the cap first held). An alert says what is spent and what running
 * campaigns have committed under the cap, since a cap may hold with most of it still reserved.
 */
import { type CapRef, capsList, THRESHOLDS, type Threshold } from '../../../contract/caps.ts';
import type { Draft } from './draft.ts';
import type { CapsEffect } from './effects.ts';
import { committedOf, spentOf } from './state.ts';

/** The alert of `ref`'s threshold `percent` in the ledger's current period: each is sent once. */
export function alertId(
  periods: { readonly day: string; readonly month: string },
  ref: CapRef,
  percent: Threshold,
): string {
  return `${ref.cap === 'daily' ? periods.day : periods.month}:${ref.cap}:${ref.model ?? '*'}:${percent}`;
}

/** Thresholds the spend of `models` crossed in this period, each alerted once (to `campaign`). */
export function crossed(d: Draft, campaign: string, models: readonly string[]): CapsEffect[] {
  return capsList(d.caps)
    .filter((ref) => ref.model === null || models.includes(ref.model))
    .flatMap((ref) =>
      THRESHOLDS.filter((t) => spentOf(d, ref) * 100 >= t * ref.limit).flatMap((t) =>
        alertOnce(d, campaign, ref, t),
      ),
    );
}

export function alertOnce(d: Draft, campaign: string, ref: CapRef, percent: Threshold): CapsEffect[] {
  const id = alertId(d, ref, percent);
  if (d.alerted.includes(id)) return [];
  d.alerted.push(id);
  const alert = { ...ref, id, percent, spent: spentOf(d, ref), committed: committedOf(d, ref) };
  return [{ kind: 'alert', campaign, alert }];
}

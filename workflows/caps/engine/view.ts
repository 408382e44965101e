/**
 * The caps ledger as its memo shows it (`caps show`, preflight): every cap with what is spent in
 * its period and what running campaigns have reserved (committed) under it, and who is held.
 * Its shape is contract/caps-view.ts's (parsed there on the client side).
 */
import { capsList } from '../../../contract/caps.ts';
import type { CapsView } from '../../../contract/caps-view.ts';
import { committedByCampaign, committedOf, type LedgerState, spentOf } from './state.ts';

export function viewOf(s: LedgerState): CapsView {
  const { caps, day, month, held, daySpent, monthSpent, modelSpent } = s;
  return {
    caps,
    day,
    month,
    lines: capsList(caps).map((ref) => ({
      ...ref,
      spent: spentOf(s, ref),
      committed: committedOf(s, ref),
    })),
    held: [...new Set(held.map((ask) => ask.campaign))],
    committedBy: Object.fromEntries(
      Object.entries(committedByCampaign(s)).map(([campaign, byModel]) => [
        campaign,
        Object.values(byModel).reduce((sum, micros) => sum + micros, 0),
      ]),
    ),
    spent: { day: daySpent, month: monthSpent, models: modelSpent },
    ...(s.usage && {
      usage: { at: s.usage.at, day: s.usage.day, dayKnown: s.usage.dayKnown, monthKnown: s.usage.monthKnown },
    }),
  };
}

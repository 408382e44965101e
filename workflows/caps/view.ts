/**
 * The caps ledger as its memo shows it (`caps show`, preflight): every cap with what is spent in
 * its period and what running campaigns have reserved (committed) under it, and who is held.
 * Its shape is contract/caps-view.ts's (parsed there on the client side).
 */

import { capsList } from '../../contract/caps.ts';
import type { CapsView } from '../../contract/caps-view.ts';
import type { Ledger } from './ledger.ts';

export function viewOf(ledger: Ledger): CapsView {
  const { caps, day, month, held, reserved, daySpent, monthSpent, modelSpent } = ledger.state;
  return {
    caps,
    day,
    month,
    lines: capsList(caps).map((ref) => ({
      ...ref,
      spent: ledger.spentOf(ref),
      committed: ledger.reservedOf(ref),
    })),
    held: [...new Set(held.map((ask) => ask.campaign))],
    committedBy: Object.fromEntries(
      Object.entries(reserved).map(([campaign, byModel]) => [
        campaign,
        Object.values(byModel).reduce((sum, micros) => sum + micros, 0),
      ]),
    ),
    spent: { day: daySpent, month: monthSpent, models: modelSpent },
  };
}

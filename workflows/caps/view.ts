/**
 * The caps ledger as its memo shows it (`caps show`, preflight): every cap with what is spent in
 * its period and what running campaigns have reserved (committed) under it, and who is held.
 * Parsed on the client side by control/caps.ts (CapsView).
 */
import type { Micros } from '../../api/money.ts';
import { type CapRef, type Caps, capsList } from '../../contract/caps.ts';
import type { Ledger } from './ledger.ts';

export interface CapsViewLine extends CapRef {
  readonly spent: Micros;
  readonly committed: Micros;
}

export interface CapsViewData {
  readonly caps: Caps;
  readonly day: string;
  readonly month: string;
  readonly lines: readonly CapsViewLine[];
  /** Campaigns with an ask a cap holds. */
  readonly held: readonly string[];
  /** Committed per campaign (all models), for preflight's "what the others hold". */
  readonly committedBy: Readonly<Record<string, Micros>>;
}

export function viewOf(ledger: Ledger): CapsViewData {
  const { caps, day, month, held, reserved } = ledger.state;
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
  };
}

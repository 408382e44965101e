/**
 * A newer engine's caps ledger takes over an older engine's (docs/caps.md, "Upgrades"). Each engine
 * generation runs its own ledger workflow (contract/caps-messages.ts, capsWorkflowId), so its workers never
 * replay another generation's history; what carries over is what the older ledger's memo shows.
 * The caps and this period's spend carry over, and the alerts that spend already crossed stay
 * sent. Reservations do not: they belong to the older engine's campaign runs, which `run` of the
 * newer engine ends and continues from their records (their new runs ask again), and an ask an
 * older run had held is asked again by its new run.
 *
 * The same goes for the ledger one spelling of the service URL had before the key's ledger was
 * keyed on the key alone (docs/caps.md, "One ledger per API key"): when the key's ledger runs
 * already, the older one's spend is added to it and the stricter of each cap kept (`merged`).
 *
 * Pure: control/caps.ts reads the memo and starts the ledger with what this returns.
 */
import { capsList, THRESHOLDS } from '../../../contract/caps.ts';
import type { CapsView } from '../../../contract/caps-view.ts';
import { alertId } from './alerts.ts';
import type { Draft } from './draft.ts';
import { emptyLedger, type LedgerState, spentOf } from './state.ts';

export function adoptedLedger(view: CapsView, now: number): LedgerState {
  const fresh = emptyLedger(now);
  // A ledger last shown in an earlier day or month: its spend in that period no longer counts.
  const sameDay = view.day === fresh.day;
  const sameMonth = view.month === fresh.month;
  const lineSpent = (cap: 'daily' | 'monthly', model: string | null) =>
    view.lines.find((line) => line.cap === cap && line.model === model)?.spent ?? 0;
  // An engine 2 memo shows spend only on capped lines: what no cap watched is unknown, so 0.
  const spent = view.spent ?? {
    day: lineSpent('daily', null),
    month: lineSpent('monthly', null),
    models: Object.fromEntries(
      Object.keys(view.caps.models).map((model) => [model, lineSpent('monthly', model)]),
    ),
  };
  const state: LedgerState = {
    ...fresh,
    caps: view.caps,
    daySpent: sameDay ? spent.day : 0,
    monthSpent: sameMonth ? spent.month : 0,
    modelSpent: sameMonth ? spent.models : {},
  };
  const alerted = capsList(state.caps).flatMap((ref) =>
    THRESHOLDS.filter((t) => spentOf(state, ref) * 100 >= t * ref.limit).map((t) => alertId(state, ref, t)),
  );
  return { ...state, alerted };
}

/**
 * An older ledger's memo taken into a running one, once per older ledger (`from`, its workflow
 * id): they counted different campaigns, so their spend adds up; of two caps, the lower holds.
 */
export function merged(d: Draft, from: string, view: CapsView, now: number): void {
  if (d.adopted.includes(from)) return;
  const older = adoptedLedger(view, now);
  d.adopted.push(from);
  d.caps = {
    daily: stricter(d.caps.daily, older.caps.daily),
    monthly: stricter(d.caps.monthly, older.caps.monthly),
    models: Object.fromEntries(
      [...new Set([...Object.keys(d.caps.models), ...Object.keys(older.caps.models)])].map((model) => [
        model,
        stricter(d.caps.models[model] ?? null, older.caps.models[model] ?? null) ?? 0,
      ]),
    ),
  };
  d.daySpent += older.daySpent;
  d.monthSpent += older.monthSpent;
  for (const [model, micros] of Object.entries(older.modelSpent))
    d.modelSpent[model] = (d.modelSpent[model] ?? 0) + micros;
  for (const id of older.alerted) if (!d.alerted.includes(id)) d.alerted.push(id);
}

function stricter(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

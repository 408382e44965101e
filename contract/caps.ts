/**
 * Spend caps across every campaign on one API key (docs/caps.md): what a cap is, which periods
 * it counts in, and how a held campaign's reason reads. Neutral ground: the key's caps ledger
 * (workflows/caps/), the campaign's reducer and the CLI all read it. Pure, no zod: the workflow
 * bundle imports it. Money is integer micro-dollars.
 */
import type { Micros } from '../api/money.ts';

/** The caps of one key; null: none. `models`: a calendar month's cap per model label. */
export interface Caps {
  readonly daily: Micros | null;
  readonly monthly: Micros | null;
  readonly models: Readonly<Record<string, Micros>>;
}

export const NO_CAPS: Caps = { daily: null, monthly: null, models: {} };

export type CapPeriod = 'daily' | 'monthly';

/** One cap: its period, the model it holds (null: every model) and its limit. */
export interface CapRef {
  readonly cap: CapPeriod;
  readonly model: string | null;
  readonly limit: Micros;
}

/** A cap that holds a campaign back: spent in its period, as the ledger knows it. */
export interface CapHold extends CapRef {
  readonly spent: Micros;
  /**
   * Reserved under it by running campaigns when the hold was told: a cap with little spent holds a
   * campaign because others have reserved the rest. Absent in holds told by earlier versions.
   */
  readonly committed?: Micros;
}

/** The thresholds alerted once per cap and period (the 100 % one also when a cap holds a campaign). */
export const THRESHOLDS = [50, 80, 100] as const;
export type Threshold = (typeof THRESHOLDS)[number];

/** A cap's threshold crossed: what the campaign told of it notifies (contract/notify.ts, cap.threshold). */
export interface CapAlert extends CapRef {
  /** Unique per cap, threshold and period: the notice's idempotency id. */
  readonly id: string;
  readonly percent: Threshold;
  readonly spent: Micros;
  /**
   * Reserved under the cap by running campaigns when it was crossed: a cap that holds a campaign
   * may be full of reservations with little spent yet. Absent from alerts of older ledgers.
   */
  readonly committed?: Micros;
}

/** The UTC day and calendar month a moment (ms) falls in: `2026-11-27`, `2026-11`. */
export function periodsOf(ms: number): { readonly day: string; readonly month: string } {
  const day = new Date(ms).toISOString().slice(0, 10);
  return { day, month: day.slice(0, 7) };
}

/** The next UTC midnight after `ms`: when the daily period (and maybe the month) turns. */
export function nextTurnMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/** Every cap set, daily and monthly of all models first, then each model's. */
export function capsList(caps: Caps): CapRef[] {
  const list: CapRef[] = [];
  if (caps.daily !== null) list.push({ cap: 'daily', model: null, limit: caps.daily });
  if (caps.monthly !== null) list.push({ cap: 'monthly', model: null, limit: caps.monthly });
  for (const [model, limit] of Object.entries(caps.models).sort(([a], [b]) => (a < b ? -1 : 1)))
    list.push({ cap: 'monthly', model, limit });
  return list;
}

/** "$5,000" or "$4,987.20": whole dollars without cents, thousands grouped. */
export function capDollars(micros: Micros): string {
  const cents = Math.round(micros / 10_000);
  const whole = Math.floor(Math.abs(cents) / 100);
  const rest = Math.abs(cents) % 100;
  const grouped = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${cents < 0 ? '-' : ''}$${grouped}${rest === 0 ? '' : `.${String(rest).padStart(2, '0')}`}`;
}

/**
 * `monthly $5,000 (spent $4,987.20)`; a model's cap names it: `monthly V4 $2,000 (spent $1,990)`;
 * with reservations: `daily $3 (spent $0.48 + $2.50 committed by running campaigns)`.
 */
export function capLine(hold: CapHold): string {
  const model = hold.model === null ? '' : ` ${hold.model}`;
  const committed = hold.committed ? ` + ${capDollars(hold.committed)} committed by running campaigns` : '';
  return `${hold.cap}${model} ${capDollars(hold.limit)} (spent ${capDollars(hold.spent)}${committed})`;
}

/** What a capped campaign carries across continue-as-new (workflows/engine/money/allowance.ts). */
export interface CarriedAllowance {
  /** Per model: granted by the ledger and not yet spent. */
  readonly reserved: readonly (readonly [string, Micros])[];
  /** Per model: spent and not yet reported to the ledger. */
  readonly unreported: readonly (readonly [string, Micros])[];
  readonly hold: CapHold | null;
  /**
   * The execution the ledger knows the campaign's notes by (contract/caps-messages.ts), with its
   * cumulative figures per model. Absent in runs carried by versions whose notes were deltas.
   */
  readonly run?: string;
  readonly totals?: {
    readonly granted: readonly (readonly [string, Micros])[];
    readonly charged: readonly (readonly [string, Micros])[];
    readonly returned: readonly (readonly [string, Micros])[];
    readonly asks: number;
  };
}

/**
 * The caps ledger's state (docs/caps.md): the caps of one API key, what is spent in the current
 * UTC day and month (per model too), what each campaign execution was granted, spent and gave
 * back, and the asks a cap holds. Plain data: it goes through JSON whole (continue-as-new carries
 * it), and the questions below are asked of it by the rules and the view.
 */
import type { Micros } from '../../../api/money.ts';
import { type CapHold, type CapRef, type Caps, NO_CAPS, periodsOf } from '../../../contract/caps.ts';
import type { AccountUsage, ByModel, CapsAsk } from '../../../contract/caps-messages.ts';

/** An ask a cap holds, with the hold its campaign was last told (its line shows what is spent). */
export interface HeldAsk extends CapsAsk {
  readonly told?: CapHold;
}

/**
 * One campaign execution, by the cumulative figures of its notes: what it may still spend is
 * `granted − spent − returned` per model, until it leaves. Kept a while after it left, so a late
 * note of it books nothing twice and a late ask of it is refused.
 */
export interface RunRecord {
  /** The campaign's workflow id: where grants and alerts go. */
  readonly campaign: string;
  readonly granted: ByModel;
  readonly spent: ByModel;
  readonly returned: ByModel;
  /** The last ask answered (its `seq`); -1: none. */
  readonly asked: number;
  /** Ledger time it left; null while it runs. */
  readonly left: number | null;
}

/** The last reading, and the totals the current day and month are measured from. */
export interface UsageSeen {
  readonly day: string;
  readonly month: string;
  readonly dayBase: Micros;
  readonly monthBase: Micros;
  readonly modelBase: ByModel;
  /** Whether the day's (month's) base is a reading from before it began; false: none, so 0. */
  readonly dayKnown: boolean;
  readonly monthKnown: boolean;
  readonly last: AccountUsage;
  /** Ledger time of the reading. */
  readonly at: number;
}

export interface LedgerState {
  readonly caps: Caps;
  readonly day: string;
  readonly month: string;
  readonly daySpent: Micros;
  readonly monthSpent: Micros;
  /** This month's spend per model. */
  readonly modelSpent: ByModel;
  /** Campaigns whose notes name no execution: per campaign, per model, granted and not yet spent. */
  readonly reserved: Readonly<Record<string, ByModel>>;
  /** Per execution (its `run`); absent in states carried by ledgers that knew none. */
  readonly runs?: Readonly<Record<string, RunRecord>>;
  readonly held: readonly HeldAsk[];
  /** Alerts sent in the current periods (their ids). */
  readonly alerted: readonly string[];
  /** Older ledgers (workflow ids) whose memo this one took in; absent: none. */
  readonly adopted?: readonly string[];
  /** The service's account usage as last read; absent: the figures are what campaigns reported. */
  readonly usage?: UsageSeen;
}

export function emptyLedger(now: number): LedgerState {
  const { day, month } = periodsOf(now);
  return {
    caps: NO_CAPS,
    day,
    month,
    daySpent: 0,
    monthSpent: 0,
    modelSpent: {},
    reserved: {},
    runs: {},
    held: [],
    alerted: [],
  };
}

/** Spent in a cap's period (its model's, for a model cap). */
export function spentOf(s: LedgerState, ref: CapRef): Micros {
  if (ref.model !== null) return s.modelSpent[ref.model] ?? 0;
  return ref.cap === 'daily' ? s.daySpent : s.monthSpent;
}

/** What an execution may still spend on `model`: granted, less spent and given back. */
export function leftOf(run: RunRecord, model: string): Micros {
  if (run.left !== null) return 0;
  return Math.max(0, (run.granted[model] ?? 0) - (run.spent[model] ?? 0) - (run.returned[model] ?? 0));
}

/** Committed (reserved and not yet spent) per campaign and model, every execution counted. */
export function committedByCampaign(s: LedgerState): Record<string, Record<string, Micros>> {
  const out: Record<string, Record<string, Micros>> = {};
  const add = (campaign: string, model: string, micros: Micros) => {
    if (micros <= 0) return;
    const mine = out[campaign] ?? {};
    mine[model] = (mine[model] ?? 0) + micros;
    out[campaign] = mine;
  };
  for (const [campaign, byModel] of Object.entries(s.reserved))
    for (const [model, micros] of Object.entries(byModel)) add(campaign, model, micros);
  for (const run of Object.values(s.runs ?? {}))
    for (const model of Object.keys(run.granted)) add(run.campaign, model, leftOf(run, model));
  return out;
}

/** Reserved by every campaign under a cap (its model's only, for a model cap). */
export function committedOf(s: LedgerState, ref: { readonly model: string | null }): Micros {
  let sum = 0;
  for (const byModel of Object.values(committedByCampaign(s)))
    for (const [model, micros] of Object.entries(byModel))
      if (ref.model === null || ref.model === model) sum += micros;
  return sum;
}

/**
 * The caps ledger of one API key, as a pure class (docs/caps.md): what is spent in the current
 * UTC day and month (per model too), what each campaign has reserved (granted and not yet spent),
 * and the asks a cap holds. Every decision of the caps workflow (workflows/caps/caps.ts) is made
 * here and returned as outputs, so it is tested as tables (test/engine/caps-ledger.test.ts).
 *
 * The rule: spent + reserved across every campaign never passes a cap. A campaign asks for whole
 * jobs' worst cases (`unit` × `count`); it is granted as many whole units as fit, so no campaign
 * holds a fragment too small for a job while another waits. Held asks are served again, highest
 * priority first then in arrival order, whenever room may have grown: caps raised or cleared, a
 * period turned, a campaign left.
 */
import type { Micros } from '../../api/money.ts';
import {
  type CapAlert,
  type CapHold,
  type CapRef,
  type Caps,
  capsList,
  NO_CAPS,
  periodsOf,
  THRESHOLDS,
  type Threshold,
} from '../../contract/caps.ts';
import type { CapsAsk } from '../../contract/caps-messages.ts';

/** An ask a cap holds, with the hold its campaign was last told (its line shows what is spent). */
export interface HeldAsk extends CapsAsk {
  readonly told?: CapHold;
}

export type LedgerOut =
  /** Reservation granted to a campaign (micros > 0), or its ask held by `hold` (micros 0). */
  | {
      readonly kind: 'grant';
      readonly campaign: string;
      readonly model: string;
      readonly micros: Micros;
      readonly hold: CapHold | null;
    }
  | { readonly kind: 'alert'; readonly campaign: string; readonly alert: CapAlert };

/** Plain state: the workflow carries it across continue-as-new. */
export interface LedgerState {
  readonly caps: Caps;
  readonly day: string;
  readonly month: string;
  readonly daySpent: Micros;
  readonly monthSpent: Micros;
  /** This month's spend per model. */
  readonly modelSpent: Readonly<Record<string, Micros>>;
  /** Per campaign, per model: granted and not yet reported spent. */
  readonly reserved: Readonly<Record<string, Readonly<Record<string, Micros>>>>;
  readonly held: readonly HeldAsk[];
  /** Alerts sent in the current periods (their ids). */
  readonly alerted: readonly string[];
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
    held: [],
    alerted: [],
  };
}

export class Ledger {
  private s: LedgerState;

  constructor(state: LedgerState) {
    this.s = state;
  }

  get state(): LedgerState {
    return this.s;
  }

  /** Replaces the caps (a `caps set` or `caps clear`): held asks may fit now. */
  setCaps(caps: Caps, now: number): LedgerOut[] {
    this.s = { ...this.s, caps };
    return this.turn(now);
  }

  /** The clock moved: a new day or month starts its spend at 0, and held asks are tried again. */
  turn(now: number): LedgerOut[] {
    const { day, month } = periodsOf(now);
    if (day !== this.s.day || month !== this.s.month) {
      const newMonth = month !== this.s.month;
      this.s = {
        ...this.s,
        day,
        month,
        daySpent: 0,
        monthSpent: newMonth ? 0 : this.s.monthSpent,
        modelSpent: newMonth ? {} : this.s.modelSpent,
        alerted: this.s.alerted.filter((id) => !newMonth && id.startsWith(`${month}:`)),
      };
    }
    return this.serveHeld();
  }

  /** A campaign asks for more reservation: granted in whole units as far as every cap allows. */
  ask(ask: CapsAsk, now: number): LedgerOut[] {
    const out = this.turn(now);
    // One held ask per campaign and model: a repeated ask replaces it.
    this.s = {
      ...this.s,
      held: this.s.held.filter((h) => h.campaign !== ask.campaign || h.model !== ask.model),
    };
    return [...out, ...this.serve(ask)];
  }

  /** A campaign's spend since its last report: its reservation becomes spent. */
  spent(campaign: string, byModel: Readonly<Record<string, Micros>>, now: number): LedgerOut[] {
    const out = this.turn(now);
    // Held campaigns show what is spent: their line follows it.
    return [...out, ...this.record(campaign, byModel), ...this.serveHeld()];
  }

  /** A campaign ended (or is gone): what it reports spent counts, the rest of its reservation returns. */
  leave(campaign: string, byModel: Readonly<Record<string, Micros>>, now: number): LedgerOut[] {
    const out = [...this.turn(now), ...this.record(campaign, byModel)];
    const { [campaign]: _, ...reserved } = this.s.reserved;
    this.s = { ...this.s, reserved, held: this.s.held.filter((h) => h.campaign !== campaign) };
    return [...out, ...this.serveHeld()];
  }

  /** Spend moves from the campaign's reservation to the period's ledger; thresholds it crossed alert. */
  private record(campaign: string, byModel: Readonly<Record<string, Micros>>): LedgerOut[] {
    const mine = { ...(this.s.reserved[campaign] ?? {}) };
    let total = 0;
    const modelSpent = { ...this.s.modelSpent };
    for (const [model, micros] of Object.entries(byModel)) {
      if (!(micros > 0)) continue;
      total += micros;
      modelSpent[model] = (modelSpent[model] ?? 0) + micros;
      mine[model] = Math.max(0, (mine[model] ?? 0) - micros);
    }
    this.s = {
      ...this.s,
      daySpent: this.s.daySpent + total,
      monthSpent: this.s.monthSpent + total,
      modelSpent,
      reserved: { ...this.s.reserved, [campaign]: mine },
    };
    return this.alerts(campaign, Object.keys(byModel));
  }

  /** Spent in a cap's period (its model's, for a model cap). */
  spentOf(ref: CapRef): Micros {
    if (ref.model !== null) return this.s.modelSpent[ref.model] ?? 0;
    return ref.cap === 'daily' ? this.s.daySpent : this.s.monthSpent;
  }

  /** Reserved by every campaign under a cap (its model's only, for a model cap). */
  reservedOf(ref: CapRef | { model: string | null }): Micros {
    let sum = 0;
    for (const byModel of Object.values(this.s.reserved))
      for (const [model, micros] of Object.entries(byModel))
        if (ref.model === null || ref.model === model) sum += micros;
    return sum;
  }

  /** The caps that hold `model`'s spend, each with the room it has left. */
  private roomsFor(model: string): { ref: CapRef; room: Micros }[] {
    return capsList(this.s.caps)
      .filter((ref) => ref.model === null || ref.model === model)
      .map((ref) => ({ ref, room: ref.limit - this.spentOf(ref) - this.reservedOf(ref) }));
  }

  /** Grants what fits of `ask`; what does not is held, and told when its hold is news. */
  private serve(ask: HeldAsk): LedgerOut[] {
    const rooms = this.roomsFor(ask.model);
    const unit = Math.max(1, ask.unit);
    const tightest = rooms.reduce<{ ref: CapRef; room: Micros } | null>(
      (a, b) => (a === null || b.room < a.room ? b : a),
      null,
    );
    const fit = tightest === null ? ask.count : Math.max(0, Math.floor(tightest.room / unit));
    const units = Math.min(ask.count, fit);
    if (units > 0) {
      const mine = this.s.reserved[ask.campaign] ?? {};
      const micros = units * unit;
      this.s = {
        ...this.s,
        reserved: {
          ...this.s.reserved,
          [ask.campaign]: { ...mine, [ask.model]: (mine[ask.model] ?? 0) + micros },
        },
      };
      return [{ kind: 'grant', campaign: ask.campaign, model: ask.model, micros, hold: null }];
    }
    if (tightest === null) return [];
    const hold: CapHold = { ...tightest.ref, spent: this.spentOf(tightest.ref) };
    this.s = { ...this.s, held: [...this.s.held, { ...ask, told: hold }] };
    if (ask.told && sameHold(ask.told, hold)) return [];
    return [
      { kind: 'grant', campaign: ask.campaign, model: ask.model, micros: 0, hold },
      ...this.alertOnce(ask.campaign, tightest.ref, 100),
    ];
  }

  /** Held asks, highest priority first then oldest first, each served again if it fits now. */
  private serveHeld(): LedgerOut[] {
    const held = this.s.held
      .map((ask, order) => ({ ask, order }))
      .sort((a, b) => (b.ask.priority ?? 0) - (a.ask.priority ?? 0) || a.order - b.order)
      .map(({ ask }) => ask);
    this.s = { ...this.s, held: [] };
    return held.flatMap((ask) => this.serve(ask));
  }

  /** Thresholds the spend of `models` crossed in this period, each alerted once (to `campaign`). */
  private alerts(campaign: string, models: readonly string[]): LedgerOut[] {
    return capsList(this.s.caps)
      .filter((ref) => ref.model === null || models.includes(ref.model))
      .flatMap((ref) =>
        THRESHOLDS.filter((t) => this.spentOf(ref) * 100 >= t * ref.limit).flatMap((t) =>
          this.alertOnce(campaign, ref, t),
        ),
      );
  }

  private alertOnce(campaign: string, ref: CapRef, percent: Threshold): LedgerOut[] {
    const id = alertId(this.s, ref, percent);
    if (this.s.alerted.includes(id)) return [];
    this.s = { ...this.s, alerted: [...this.s.alerted, id] };
    return [{ kind: 'alert', campaign, alert: { ...ref, id, percent, spent: this.spentOf(ref) } }];
  }
}

/** The alert of `ref`'s threshold `percent` in the ledger's current period: each is sent once. */
export function alertId(
  periods: { readonly day: string; readonly month: string },
  ref: CapRef,
  percent: Threshold,
): string {
  return `${ref.cap === 'daily' ? periods.day : periods.month}:${ref.cap}:${ref.model ?? '*'}:${percent}`;
}

function sameHold(a: CapHold, b: CapHold): boolean {
  return a.cap === b.cap && a.model === b.model && a.limit === b.limit && a.spent === b.spent;
}

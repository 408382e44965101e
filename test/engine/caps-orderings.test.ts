/**
 * The caps ledger under every ordering of its messages (docs/caps.md, "Any order of notes"): a
 * model-based test of its engine (workflows/caps/engine/step.ts) with three campaigns whose side
 * is the real one (workflows/engine/money/allowance.ts, the notes of engine/caps.ts). A scheduler drawn by
 * fast-check interleaves their asks, jobs, reports, give-backs, leaves, a campaign run again under
 * its workflow id, continue-as-new and a grant to a campaign that ended failing, with the delivery of every message in both directions in
 * any order, late or twice, and the ledger restarted from its state through JSON between any two.
 * After every step: spent + committed stays within every cap, and what the campaigns were really
 * charged stays within it too. At the end, every message delivered: the ledger counted exactly
 * what was charged, and nothing stays committed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Micros } from '../../api/money.ts';
import { type CapRef, type Caps, capsList } from '../../contract/caps.ts';
import type { CapsAsk, CapsGrant, CapsReport } from '../../contract/caps-messages.ts';
import type { CapsEvent } from '../../workflows/caps/engine/events.ts';
import { committedOf, emptyLedger, type LedgerState, spentOf } from '../../workflows/caps/engine/state.ts';
import { step } from '../../workflows/caps/engine/step.ts';
import { leaveNote, reportOf } from '../../workflows/engine/caps.ts';
import type { CapsNote } from '../../workflows/engine/effects.ts';
import * as Allowance from '../../workflows/engine/money/allowance.ts';

const DAY = Date.UTC(2026, 10, 27, 9);
const CAPS: Caps = { daily: 400_000, monthly: 500_000, models: { V4: 250_000 } };
const PRICES: Record<string, Micros> = { I4: 30_000, V4: 120_000 };
const MODELS = Object.keys(PRICES);
const CAMPAIGNS = ['a', 'b', 'c'];

type ToLedger =
  | { readonly kind: 'ask'; readonly ask: CapsAsk }
  | { readonly kind: 'spent' | 'leave'; readonly report: CapsReport };
type ToCampaign = { readonly campaign: string; readonly grant: CapsGrant };

interface Job {
  readonly model: string;
  readonly usd: Micros;
}

interface Campaign {
  readonly id: string;
  run: string;
  runs: number;
  allowance: Allowance.AllowanceState;
  jobs: Job[];
  left: boolean;
}

/** A world: the ledger, the campaigns, what each was really charged, and the messages under way. */
class World {
  ledger: LedgerState;
  readonly campaigns: Campaign[];
  charged = 0;
  chargedByModel: Record<string, Micros> = {};
  toLedger: ToLedger[] = [];
  toCampaigns: ToCampaign[] = [];
  at = DAY;

  constructor() {
    this.ledger = step(emptyLedger(DAY), { kind: 'caps-set', caps: CAPS, at: DAY }).state;
    this.campaigns = CAMPAIGNS.map((id) => ({
      id,
      run: `${id}-0`,
      runs: 1,
      allowance: fresh(`${id}-0`),
      jobs: [],
      left: false,
    }));
  }

  tell(c: Campaign, note: CapsNote): void {
    if (note.kind === 'ask') {
      const { model, unit, count, seq } = note;
      this.toLedger.push({
        kind: 'ask',
        ask: { campaign: c.id, model, unit, count, run: c.run, ...(seq !== undefined && { seq }) },
      });
      return;
    }
    const { spent, total, returned } = note;
    this.toLedger.push({
      kind: note.kind,
      report: { campaign: c.id, spent, run: c.run, ...(total && { total }), ...(returned && { returned }) },
    });
  }

  toLedgerOne(message: ToLedger): void {
    this.at += 1;
    const event: CapsEvent =
      message.kind === 'ask'
        ? { kind: 'ask', ask: message.ask, at: this.at }
        : { kind: message.kind, report: message.report, at: this.at };
    const next = step(this.ledger, event);
    this.ledger = next.state;
    for (const effect of next.effects)
      if (effect.kind === 'grant') this.toCampaigns.push({ campaign: effect.campaign, grant: effect.grant });
  }

  gone(campaign: string): void {
    this.at += 1;
    const next = step(this.ledger, { kind: 'gone', campaign, at: this.at });
    this.ledger = next.state;
    for (const effect of next.effects)
      if (effect.kind === 'grant') this.toCampaigns.push({ campaign: effect.campaign, grant: effect.grant });
  }

  toCampaignOne({ campaign, grant }: ToCampaign): void {
    const c = this.campaigns.find((one) => one.id === campaign)!;
    // The link's filter: a grant for another execution of the workflow id is not this one's.
    if (c.left || (grant.run !== undefined && grant.run !== c.run)) return;
    Allowance.granted(c.allowance, grant.model, grant.micros, grant.hold, grant.granted);
  }

  /** Spend and reservations within every cap; what campaigns were really charged too. */
  check(): void {
    for (const ref of capsList(this.ledger.caps)) {
      const booked = spentOf(this.ledger, ref) + committedOf(this.ledger, ref);
      // Plain comparisons in the loop: it runs some hundred thousand times.
      if (booked > ref.limit)
        throw new Error(`${ref.cap} ${ref.model ?? '*'}: spent + committed ${booked} > ${ref.limit}`);
      const charged = this.truth(ref);
      if (charged > booked)
        throw new Error(`${ref.cap} ${ref.model ?? '*'}: charged ${charged} > booked ${booked}`);
    }
  }

  truth(ref: CapRef): Micros {
    return ref.model === null ? this.charged : (this.chargedByModel[ref.model] ?? 0);
  }
}

function fresh(run: string): Allowance.AllowanceState {
  return Allowance.allowanceOf({ reserved: [], unreported: [], hold: null, run });
}

/** One move of the world, drawn as numbers the scheduler reads against what is possible now. */
const Move = fc.record({
  kind: fc.constantFrom(
    'start',
    'start',
    'start',
    'finish',
    'finish',
    'report',
    'give-back',
    'leave',
    'roll-over',
    'deliver',
    'deliver',
    'deliver',
    'deliver-twice',
    'answer',
    'answer',
    'answer-twice',
    'restart-ledger',
    'closed',
  ),
  who: fc.nat(),
  pick: fc.nat(),
  amount: fc.oneof(fc.constant(100), fc.integer({ min: 0, max: 100 })),
});
type Move = typeof Move extends fc.Arbitrary<infer T> ? T : never;

function play(w: World, move: Move): void {
  const c = w.campaigns[move.who % w.campaigns.length]!;
  const model = MODELS[move.pick % MODELS.length]!;
  const a = c.allowance;
  switch (move.kind) {
    case 'start': {
      // As the selection does: a job that fits starts, one that does not asks (once per model).
      if (c.left) return;
      const usd = PRICES[model]!;
      if (Allowance.fits(a, model, usd, 0)) {
        Allowance.commit(a, model, usd);
        c.jobs.push({ model, usd });
        return;
      }
      Allowance.short(a, model, usd);
      for (const { model: short, unit, seq } of Allowance.takeNeeds(a))
        w.tell(c, {
          kind: 'ask',
          model: short,
          unit,
          count: 1 + (move.amount % 4),
          ...(seq !== undefined && { seq }),
        });
      return;
    }
    case 'finish': {
      if (c.jobs.length === 0) return;
      const [job] = c.jobs.splice(move.pick % c.jobs.length, 1);
      // Charged anything up to its worst case (nothing: found recorded, refused, failed unpaid).
      const paid = Math.floor((job!.usd * move.amount) / 100);
      Allowance.release(a, job!.model, job!.usd);
      Allowance.charge(a, job!.model, paid);
      w.charged += paid;
      w.chargedByModel[job!.model] = (w.chargedByModel[job!.model] ?? 0) + paid;
      return;
    }
    case 'report':
      if (!c.left) w.tell(c, reportOf(a, 'spent'));
      return;
    case 'give-back':
      // No job left that may start: everything not committed goes back.
      if (c.left) return;
      Allowance.giveBack(a, {});
      w.tell(c, reportOf(a, 'spent'));
      return;
    case 'leave':
      if (c.left) {
        // The same workflow id run again: a new execution.
        c.run = `${c.id}-${c.runs++}`;
        c.allowance = fresh(c.run);
        c.left = false;
        return;
      }
      if (c.jobs.length > 0) return; // a campaign ends once what it has in flight landed
      w.tell(c, leaveNote(a));
      c.left = true;
      return;
    case 'roll-over': {
      // Continue-as-new (or a worker killed and the run replayed): the allowance through JSON.
      if (c.left) return;
      const carried = JSON.parse(JSON.stringify(Allowance.carry(a)));
      c.allowance = Allowance.allowanceOf(carried);
      for (const job of c.jobs) Allowance.commit(c.allowance, job.model, job.usd);
      return;
    }
    case 'deliver':
    case 'deliver-twice': {
      if (w.toLedger.length === 0) return;
      const i = move.pick % w.toLedger.length;
      const message = w.toLedger[i]!;
      if (move.kind === 'deliver') w.toLedger.splice(i, 1);
      w.toLedgerOne(message);
      return;
    }
    case 'answer':
    case 'answer-twice': {
      if (w.toCampaigns.length === 0) return;
      const i = move.pick % w.toCampaigns.length;
      const message = w.toCampaigns[i]!;
      if (move.kind === 'answer') w.toCampaigns.splice(i, 1);
      w.toCampaignOne(message);
      return;
    }
    case 'restart-ledger':
      w.ledger = JSON.parse(JSON.stringify(w.ledger));
      return;
    case 'closed': {
      // A grant to a campaign that ended could not be sent: the ledger drops what it holds. A
      // campaign ends only once its signals were delivered (it waits for them), so its leave
      // is in the ledger's history before any send to it can fail.
      const from = (m: ToLedger) => (m.kind === 'ask' ? m.ask.campaign : m.report.campaign);
      if (c.left && !w.toLedger.some((m) => from(m) === c.id)) w.gone(c.id);
      return;
    }
  }
}

/** Every campaign ends (its jobs land, charged in full) and every message is delivered. */
function settle(w: World): void {
  for (const c of w.campaigns) {
    if (c.left) continue;
    for (const job of c.jobs.splice(0)) {
      Allowance.release(c.allowance, job.model, job.usd);
      Allowance.charge(c.allowance, job.model, job.usd);
      w.charged += job.usd;
      w.chargedByModel[job.model] = (w.chargedByModel[job.model] ?? 0) + job.usd;
    }
    w.tell(c, leaveNote(c.allowance));
    c.left = true;
  }
  while (w.toLedger.length > 0 || w.toCampaigns.length > 0) {
    const message = w.toLedger.shift();
    if (message) w.toLedgerOne(message);
    const answer = w.toCampaigns.shift();
    if (answer) w.toCampaignOne(answer);
    w.check();
  }
}

describe('caps ledger: any order of messages', () => {
  it('keeps spent + committed and what was charged within every cap, and counts every charge once', () => {
    fc.assert(
      fc.property(fc.array(Move, { minLength: 20, maxLength: 150, size: 'max' }), (moves) => {
        const w = new World();
        for (const move of moves) {
          play(w, move);
          w.check();
        }
        settle(w);
        expect(w.ledger.monthSpent).toBe(w.charged);
        expect(w.ledger.modelSpent.V4 ?? 0).toBe(w.chargedByModel.V4 ?? 0);
        expect(committedOf(w.ledger, { model: null })).toBe(0);
        expect(w.ledger.held).toEqual([]);
      }),
      { numRuns: 3_000 },
    );
  });
});

/**
 * Drives the caps ledger's engine (workflows/caps/engine/step.ts) the way its workflow does, one
 * event at a time, for the tables: each call is one event, answered with its effects.
 */
import type { Caps } from '../../contract/caps.ts';
import type { CapsAsk, CapsReport } from '../../contract/caps-messages.ts';
import type { CapsEffect } from '../../workflows/caps/engine/effects.ts';
import type { CapsEvent } from '../../workflows/caps/engine/events.ts';
import { emptyLedger, type LedgerState } from '../../workflows/caps/engine/state.ts';
import { step } from '../../workflows/caps/engine/step.ts';

export class LedgerDriver {
  state: LedgerState;

  constructor(state: LedgerState) {
    this.state = state;
  }

  static at(now: number): LedgerDriver {
    return new LedgerDriver(emptyLedger(now));
  }

  on(event: CapsEvent): CapsEffect[] {
    const next = step(this.state, event);
    this.state = next.state;
    return next.effects;
  }

  setCaps(caps: Caps, at: number) {
    return this.on({ kind: 'caps-set', caps, at });
  }
  ask(ask: CapsAsk, at: number) {
    return this.on({ kind: 'ask', ask, at });
  }
  /** A report without an execution: spend since the campaign's last one. */
  spent(campaign: string, spent: CapsReport['spent'], at: number) {
    return this.on({ kind: 'spent', report: { campaign, spent }, at });
  }
  leave(campaign: string, spent: CapsReport['spent'], at: number) {
    return this.on({ kind: 'leave', report: { campaign, spent }, at });
  }
  note(kind: 'spent' | 'leave', report: CapsReport, at: number) {
    return this.on({ kind, report, at });
  }
  turn(at: number) {
    return this.on({ kind: 'turn', at });
  }
}

export const grantsOf = (effects: readonly CapsEffect[]) =>
  effects.flatMap((e) =>
    e.kind === 'grant' ? [[e.campaign, e.grant.model, e.grant.micros, e.grant.hold?.cap ?? null]] : [],
  );
export const alertsOf = (effects: readonly CapsEffect[]) =>
  effects.flatMap((e) =>
    e.kind === 'alert' ? [`${e.alert.cap}:${e.alert.model ?? '*'}:${e.alert.percent}`] : [],
  );

/**
 * The caps ledger's one router (docs/caps.md): an event in, the next state and what to send out.
 * Pure (no Temporal, no Node): the workflow (workflows/caps/caps.ts) turns signals and timers into
 * events and carries out the effects; every decision is a row of test/engine/caps-ledger.test.ts,
 * and test/engine/caps-orderings.test.ts runs it through any order of notes.
 *
 * The rule: spent + committed across every campaign never passes a cap. Each event first moves
 * the ledger into the current UTC day and month (a new day's spend starts at 0), which serves held
 * asks again, as does anything that may have made room.
 */
import { periodsOf } from '../../../contract/caps.ts';
import { merged } from './adopt.ts';
import { type Draft, draftOf } from './draft.ts';
import type { CapsEffect } from './effects.ts';
import type { CapsEvent } from './events.ts';
import { asked, serveHeld } from './grants.ts';
import { booked, forgetOld, gone, left } from './spend.ts';
import type { LedgerState } from './state.ts';
import { seeded } from './usage.ts';

export interface Stepped {
  readonly state: LedgerState;
  readonly effects: CapsEffect[];
}

export function step(state: LedgerState, event: CapsEvent): Stepped {
  const d = draftOf(state);
  const effects = route(d, event);
  return { state: d, effects };
}

function route(d: Draft, event: CapsEvent): CapsEffect[] {
  switch (event.kind) {
    case 'caps-set':
      d.caps = event.caps;
      return turned(d, event.at);
    case 'turn':
      return turned(d, event.at);
    case 'ask':
      return [...turned(d, event.at), ...asked(d, event.ask)];
    case 'spent':
      // Held campaigns show what is spent: their line follows it.
      return [...turned(d, event.at), ...booked(d, event.report), ...serveHeld(d)];
    case 'leave': {
      const out = [...turned(d, event.at), ...booked(d, event.report)];
      left(d, event.report, event.at);
      return [...out, ...serveHeld(d)];
    }
    case 'adopt': {
      const out = turned(d, event.at);
      merged(d, event.from, event.view, event.at);
      return [...out, ...serveHeld(d)];
    }
    case 'usage-read': {
      const out = turned(d, event.at);
      seeded(d, event.usage, event.at);
      return [...out, ...serveHeld(d)];
    }
    case 'gone': {
      const out = turned(d, event.at);
      gone(d, event.campaign, event.at);
      return [...out, ...serveHeld(d)];
    }
  }
}

/** Into the current periods (a new day's or month's spend starts at 0), then held asks again. */
function turned(d: Draft, at: number): CapsEffect[] {
  const { day, month } = periodsOf(at);
  if (day !== d.day || month !== d.month) {
    const newMonth = month !== d.month;
    d.day = day;
    d.month = month;
    d.daySpent = 0;
    if (newMonth) {
      d.monthSpent = 0;
      d.modelSpent = {};
    }
    d.alerted = d.alerted.filter((id) => !newMonth && id.startsWith(`${month}:`));
  }
  forgetOld(d, at);
  return serveHeld(d);
}

/**
 * A ledger state the engine's rules may change in place: step.ts copies the state it is given
 * into one, so a step never changes what its caller holds.
 */
import type { Micros } from '../../../api/money.ts';
import type { Caps } from '../../../contract/caps.ts';
import type { HeldAsk, LedgerState, UsageSeen } from './state.ts';

export interface RunDraft {
  readonly campaign: string;
  granted: Record<string, Micros>;
  spent: Record<string, Micros>;
  returned: Record<string, Micros>;
  asked: number;
  left: number | null;
}

export interface Draft {
  caps: Caps;
  day: string;
  month: string;
  daySpent: Micros;
  monthSpent: Micros;
  modelSpent: Record<string, Micros>;
  reserved: Record<string, Record<string, Micros>>;
  runs: Record<string, RunDraft>;
  held: HeldAsk[];
  alerted: string[];
  adopted: string[];
  usage?: UsageSeen;
}

export function draftOf(s: LedgerState): Draft {
  const runs: Record<string, RunDraft> = {};
  for (const [run, r] of Object.entries(s.runs ?? {}))
    runs[run] = { ...r, granted: { ...r.granted }, spent: { ...r.spent }, returned: { ...r.returned } };
  return {
    caps: s.caps,
    day: s.day,
    month: s.month,
    daySpent: s.daySpent,
    monthSpent: s.monthSpent,
    modelSpent: { ...s.modelSpent },
    reserved: Object.fromEntries(Object.entries(s.reserved).map(([c, byModel]) => [c, { ...byModel }])),
    runs,
    held: [...s.held],
    alerted: [...s.alerted],
    adopted: [...(s.adopted ?? [])],
    ...(s.usage && { usage: s.usage }),
  };
}

/**
 * What campaigns, the CLI and a key's caps workflow (workflows/caps/caps.ts) say to each other (docs/caps.md).
 * Signals both ways, as with the rate governor: a workflow can signal another but not update it.
 * Nothing here names the API key, only its fingerprint (control/governor.ts, keyFingerprint).
 */
import { defineSignal } from '@temporalio/workflow';
import type { Micros } from '../api/money.ts';
import type { CapAlert, CapHold, Caps } from './caps.ts';
import { ENGINE } from './engine.ts';

/** A campaign's ask for `count` more jobs of `unit` worst-case price on `model`. */
export interface CapsAsk {
  readonly campaign: string;
  readonly model: string;
  readonly unit: Micros;
  readonly count: number;
  /** Higher is served first when asks are held (spec `priority:`); absent: 0. */
  readonly priority?: number;
}

/** From `mediaflow caps set|clear`: the key's caps from now on (the whole set). */
export const capsSetSignal = defineSignal<[Caps]>('caps-set');
/** A campaign wants more reservation before it commits jobs' worst cases. */
export const capsAskSignal = defineSignal<[CapsAsk]>('caps-ask');
/** A campaign's spend since its last report, per model (its reservation becomes spent). */
export const capsSpentSignal =
  defineSignal<[{ readonly campaign: string; readonly spent: Readonly<Record<string, Micros>> }]>(
    'caps-spent',
  );
/** A campaign ended: its last spend counts and the rest of its reservation goes back. */
export const capsLeaveSignal =
  defineSignal<[{ readonly campaign: string; readonly spent: Readonly<Record<string, Micros>> }]>(
    'caps-leave',
  );

/** To a campaign: reservation granted on `model` (micros > 0), or its ask held by a cap. */
export interface CapsGrant {
  readonly model: string;
  readonly micros: Micros;
  readonly hold: CapHold | null;
}
export const capsGrantSignal = defineSignal<[CapsGrant]>('caps-grant');
/** To a campaign: a cap's threshold was crossed; the campaign notifies its targets. */
export const capsAlertSignal = defineSignal<[CapAlert]>('caps-alert');

/** The caps workflow's id: one per key fingerprint and engine generation (this one's by default). */
export function capsWorkflowId(keyFingerprint: string, engine = ENGINE): string {
  return `mediaflow-caps-e${engine}-${keyFingerprint}`;
}

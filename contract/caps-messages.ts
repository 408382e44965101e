/**
 * What campaigns, the CLI and a key's caps workflow (workflows/caps/caps.ts) say to each other (docs/caps.md).
 * Signals both ways, as with the rate governor: a workflow can signal another but not update it.
 * Nothing here names the API key, only its fingerprint (control/governor.ts, capsKeyFingerprint).
 *
 * A campaign's notes name its execution (`run`: the first run id of its chain of runs, the same
 * across continue-as-new) and carry cumulative figures, so the ledger tells a late or repeated note
 * from a new one: it books only what a note adds to what it knew. Notes without `run` come from
 * campaigns started before that, and are taken as they were (`spent` since the last report).
 */
import { defineSignal } from '@temporalio/workflow';
import type { Micros } from '../api/money.ts';
import type { CapAlert, CapHold, Caps } from './caps.ts';
import type { CapsView } from './caps-view.ts';
import { ENGINE } from './engine.ts';

/** Micros per model label. */
export type ByModel = Readonly<Record<string, Micros>>;

/** A campaign's ask for `count` more jobs of `unit` worst-case price on `model`. */
export interface CapsAsk {
  readonly campaign: string;
  readonly model: string;
  readonly unit: Micros;
  readonly count: number;
  /** Higher is served first when asks are held (spec `priority:`); absent: 0. */
  readonly priority?: number;
  /** The campaign's execution; absent from campaigns that predate it. */
  readonly run?: string;
  /** The execution's asks are numbered: one already answered is not granted again. */
  readonly seq?: number;
}

/** A campaign's report of its spend; `spent` is since its last report (what older campaigns send). */
export interface CapsReport {
  readonly campaign: string;
  readonly spent: ByModel;
  readonly run?: string;
  /** With `run`: everything the execution spent so far, per model. */
  readonly total?: ByModel;
  /** With `run`: everything it gave back so far, per model (reservation it can no longer need). */
  readonly returned?: ByModel;
}

/** From `mediaflow caps set|clear`: the key's caps from now on (the whole set). */
export const capsSetSignal = defineSignal<[Caps]>('caps-set');
/** A campaign wants more reservation before it commits jobs' worst cases. */
export const capsAskSignal = defineSignal<[CapsAsk]>('caps-ask');
/** A campaign's spend (its reservation becomes spent), and reservation it gives back. */
export const capsSpentSignal = defineSignal<[CapsReport]>('caps-spent');
/** A campaign ended: its last spend counts and the rest of its reservation goes back. */
export const capsLeaveSignal = defineSignal<[CapsReport]>('caps-leave');

/**
 * From a client: an older ledger of the key (another engine's, or the one a spelling of the
 * service URL had), as its memo showed it, taken in once (`from`: its workflow id).
 */
export const capsAdoptSignal =
  defineSignal<[{ readonly from: string; readonly view: CapsView }]>('caps-adopt');

/** The account's spend so far as the service reports it (`GET /v1/account/usage`), per model label. */
export interface AccountUsage {
  readonly total: Micros;
  readonly models: ByModel;
}
/** From a client of the key: the service's account usage it read (the API key stays with it). */
export const capsUsageSignal = defineSignal<[AccountUsage]>('caps-usage');

/** To a campaign: reservation granted on `model` (micros > 0), or its ask held by a cap. */
export interface CapsGrant {
  readonly model: string;
  readonly micros: Micros;
  readonly hold: CapHold | null;
  /** The execution it is for (absent: an ask without `run`): another execution ignores it. */
  readonly run?: string;
  /** With `run`: everything granted to that execution on `model` so far. */
  readonly granted?: Micros;
}
export const capsGrantSignal = defineSignal<[CapsGrant]>('caps-grant');
/** To a campaign: a cap's threshold was crossed; the campaign notifies its targets. */
export const capsAlertSignal = defineSignal<[CapAlert]>('caps-alert');

/** The caps workflow's id: one per key fingerprint and engine generation (this one's by default). */
export function capsWorkflowId(keyFingerprint: string, engine = ENGINE): string {
  return `mediaflow-caps-e${engine}-${keyFingerprint}`;
}

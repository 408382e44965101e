/**
 * What reaches a key's caps ledger, as events of its engine (step.ts): the thin workflow
 * (workflows/caps/caps.ts) turns each signal, timer and failed send into one. `at` is the ledger's
 * clock (workflow time) when it arrived.
 */
import type { Caps } from '../../../contract/caps.ts';
import type { CapsAsk, CapsReport } from '../../../contract/caps-messages.ts';
import type { CapsView } from '../../../contract/caps-view.ts';
import type { AccountUsage } from './usage.ts';

export type CapsEvent =
  /** `caps set|clear`: the whole set from now on. */
  | { readonly kind: 'caps-set'; readonly caps: Caps; readonly at: number }
  | { readonly kind: 'ask'; readonly ask: CapsAsk; readonly at: number }
  | { readonly kind: 'spent'; readonly report: CapsReport; readonly at: number }
  | { readonly kind: 'leave'; readonly report: CapsReport; readonly at: number }
  /** The ledger's timer at UTC midnight: a new day (maybe month) starts. */
  | { readonly kind: 'turn'; readonly at: number }
  /** A grant or alert to this campaign could not be sent: it is closed (terminated, never left). */
  | { readonly kind: 'gone'; readonly campaign: string; readonly at: number }
  /** An older ledger of the key (another engine, or a URL's spelling) as its memo showed it. */
  | { readonly kind: 'adopt'; readonly from: string; readonly view: CapsView; readonly at: number }
  /** The service's account usage, read by a client of the key (usage.ts). */
  | { readonly kind: 'usage-read'; readonly usage: AccountUsage; readonly at: number };

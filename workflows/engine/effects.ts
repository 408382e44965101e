/**
 * What `step` (step.ts) asks the workflow to do: start an activity, signal the rate governor,
 * publish progress, wait, end. The executor (runtime/executor.ts) carries them out and feeds
 * each result back as an event; it decides nothing. Plain data: a test compares them by value.
 */
import type { Micros } from '../../api/money.ts';
import type { InFlightJob, PendingJob, ServiceLimits } from '../../contract/campaign.ts';
import type { Notice, NotifyTarget } from '../../contract/notify.ts';
import type { DecisionRecord, ReviewAck } from '../../contract/review.ts';
import type { CancelPass } from './events.ts';
import type { Span } from './reviews/review-rules.ts';

/** What the campaign tells its key's rate governor (governor/link.ts sends it). */
export type GovernorNote =
  | { readonly kind: 'limits'; readonly limits: ServiceLimits }
  | { readonly kind: 'need'; readonly perSecond: number }
  | { readonly kind: 'throttled'; readonly retryAfterMs: number }
  | { readonly kind: 'leave' };

/**
 * What a capped campaign tells its key's caps ledger (workflows/caps/link.ts sends it). `spent` is
 * since the last report; a campaign known to the ledger by its execution (allowance `run`) also
 * numbers its asks and carries its totals so far, so a late note is told from a new one.
 */
export type CapsNote =
  | {
      readonly kind: 'ask';
      readonly model: string;
      readonly unit: Micros;
      readonly count: number;
      readonly seq?: number;
    }
  | {
      readonly kind: 'spent' | 'leave';
      readonly spent: Readonly<Record<string, Micros>>;
      readonly total?: Readonly<Record<string, Micros>>;
      readonly returned?: Readonly<Record<string, Micros>>;
    };

export type Effect =
  /**
   * Create these jobs' predictions, one batch request (createPredictions); answers `created`.
   * `reconcileSince`: after an outage, what was made since then is adopted first (pacing/outage.ts).
   */
  | { readonly kind: 'create'; readonly batch: readonly PendingJob[]; readonly reconcileSince?: number }
  /** Wait for these predictions of one step and create their heirs (finishPredictions); answers `batch-finished`. */
  | {
      readonly kind: 'finish-batch';
      readonly flights: readonly InFlightJob[];
      /** Handed over from an earlier run: a killed worker may have left partial files. */
      readonly resumed?: true;
    }
  /** The loop reads the service's limits, and waits for them; answers `limits-read`. */
  | { readonly kind: 'read-limits' }
  /** The loop reads `count` jobs of the plan at the cursor; answers `jobs-loaded`. */
  | { readonly kind: 'load-jobs'; readonly from: number; readonly count: number }
  /** The loop reads the plan indexes decisions released; answers `released`. */
  | { readonly kind: 'read-released'; readonly span: Span }
  /** Review decisions to record (created once per job key and take) before they are acknowledged. */
  | { readonly kind: 'record-decisions'; readonly records: readonly DecisionRecord[] }
  /** The answer to a `review` event: which decisions applied, which were refused and why. */
  | { readonly kind: 'acknowledge'; readonly ack: ReviewAck }
  | { readonly kind: 'tell-governor'; readonly note: GovernorNote }
  | { readonly kind: 'tell-caps'; readonly note: CapsNote }
  /** The progress in the memo (and, `indexed`, the search attributes that changed). */
  | { readonly kind: 'publish'; readonly indexed: boolean }
  | {
      readonly kind: 'log';
      readonly level: 'info' | 'warn';
      readonly message: string;
      readonly attrs?: object;
    }
  /** Until an activity reports (or the campaign is done), or at most `ms` when set. */
  | { readonly kind: 'wait'; readonly ms: number | null }
  /**
   * Send a notice to each of `targets` (deliverNotice), never awaited on the way: each delivery
   * answers `notified`. `id` is unique in the campaign: the executor makes it the `webhook-id`,
   * the same on every attempt, so a receiver takes the notice at most once.
   */
  | {
      readonly kind: 'notify';
      readonly id: string;
      readonly notice: Notice;
      /** The targets that want it, as `step` returns the effect (notices/notify.ts, addressed). */
      readonly targets?: readonly NotifyTarget[];
    }
  /**
   * Cancel upstream every prediction the campaign claimed (cancelOutstanding), once what `after`
   * names has landed (`creates`: no create under way; `heirs`: no finish creating an heir);
   * answers `canceled`.
   */
  | { readonly kind: 'cancel-upstream'; readonly after: CancelPass }
  /** The failure that caused this (a read of the loop) fails the workflow: the runtime rethrows it. */
  | { readonly kind: 'fail' }
  /** Nothing left to do: the campaign ends with its outcome. */
  | { readonly kind: 'complete' }
  /** Drained: continue as new, carrying what is still in flight. */
  | { readonly kind: 'roll-over' };

/**
 * What the campaign workflow asks of its activities and what they answer: the contract both
 * sides of the workflow/activity boundary import. JSON-safe, secret-free, bounded per call.
 */
import type { ModelLabel } from '../api/catalogue/models.ts';
import type { Micros } from '../api/money.ts';
import type { PlanRef } from './campaign.ts';
import type { FailureKind } from './failure-policy.ts';
import type { ReviewAction } from './review.ts';

export interface CreateItem {
  readonly i: number;
  readonly regen: number;
  /** A reviewer's regeneration: the recorded output of an earlier take is replaced. */
  readonly retake?: true;
  /** The reviewer's new prompt, in place of the plan's (review.edit_prompt). */
  readonly prompt?: string;
  /** A take on the step's `on_refusal: { fallback }` model instead of the plan's (same input). */
  readonly model?: ModelLabel;
}

export type CreateOutcome =
  | {
      readonly kind: 'created';
      readonly i: number;
      readonly predictionId: string;
      /** Worker clock when the service answered: where the prediction's wait starts. */
      readonly at: number;
      /**
       * Adopted from an earlier run that paid for it and could not save its output
       * (records/unsaved.ts): its finish adds nothing to the spend. Absent: not known to be paid.
       */
      readonly paidBefore?: true;
    }
  /** The manifest already holds this job from an earlier run. */
  | {
      readonly kind: 'cached';
      readonly i: number;
      /** Reviewed steps only: the recorded take, and the decision recorded for it, if any. */
      readonly take?: number;
      readonly verdict?: { readonly action: ReviewAction; readonly prompt?: string };
      /** Steps with reviewed derive steps only: the decision recorded for each derivative's take, or null. */
      readonly derived?: readonly (ReviewAction | null)[];
      readonly underived?: Underived;
    }
  /** The parent has no output: it failed, was skipped or canceled. */
  | { readonly kind: 'skipped'; readonly i: number; readonly reason: string }
  /** The service refused the request for good (invalid input, no credits…). */
  | {
      readonly kind: 'rejected';
      readonly i: number;
      readonly code: string;
      readonly message: string;
      /** The failure policy's kind (contract/failure-policy.ts): what the refusal does. */
      readonly failure: FailureKind;
      /**
       * What the service charged for it: a flagged output of an earlier run whose record a full
       * disk refused, found and recorded now (create/adopt-claimed.ts). Absent: nothing charged.
       */
      readonly creditsUsed?: Micros;
    }
  /** Rate limited inside a batch: try again after the delay. */
  | { readonly kind: 'retry'; readonly i: number; readonly afterMs: number }
  /**
   * The service is down (503s, timeouts, connection refused through several attempts): the job
   * goes back to the queue and the campaign pauses (failure kind `service_unavailable`). It may
   * have been created since `since` (worker clock, ms): its next create reconciles from then.
   */
  | {
      readonly kind: 'unavailable';
      readonly i: number;
      readonly reason: string;
      readonly since: number;
      /** Worker clock when the activity gave up (moves the campaign clock). */
      readonly at: number;
    };

export interface CreateRequest {
  readonly campaign: string;
  readonly plan: PlanRef;
  readonly outputDir: string;
  readonly items: readonly CreateItem[];
  /**
   * Set after an outage sent jobs back to the queue (worker clock, ms): predictions made since
   * then may be theirs, unanswered, and are adopted before anything is created (reconcile.ts).
   */
  readonly reconcileSince?: number;
}

export interface FinishRequest {
  readonly campaign: string;
  readonly plan: PlanRef;
  readonly outputDir: string;
  readonly i: number;
  readonly regen: number;
  readonly predictionId: string;
  /**
   * Worker clock when its create was answered (or adopted: later than the creation, so the wait
   * measured from here is then short; the latency mean is smoothed over many jobs).
   */
  readonly startedAt: number;
  /** Handed over from an earlier run: a killed worker may have left a partial download behind. */
  readonly resumed: boolean;
  /** As CreateOutcome's: an earlier run paid for this prediction; saving it costs nothing more. */
  readonly paidBefore?: true;
  /**
   * A job to create as soon as this prediction ends, before its output is downloaded: the
   * service slot passes straight to the next job, with no workflow round trip in between
   * (docs/engine.md, "Heirs"). Null when the campaign is bound by the create rate instead.
   */
  readonly heir: CreateItem | null;
  /** As CreateItem's: this prediction is a reviewer's new take (saved beside the earlier ones). */
  readonly retake?: true;
  readonly prompt?: string;
  /** As CreateItem's: the take was made on the fallback model. */
  readonly model?: ModelLabel;
  /**
   * The step's `timeout:` (ms from `startedAt`): past it the prediction is canceled upstream and
   * the job ends `timed_out`. Absent: no deadline.
   */
  readonly timeoutMs?: number;
}

/**
 * The places, in JobRef.derived, of the job's reviewed derivatives that could not be made from this
 * output (recorded `derive_failed`): there is no file to decide on, so no gate opens for them.
 * Absent: every one was made (and in histories recorded before).
 */
export type Underived = readonly number[];

export type FinishOutcome =
  | {
      readonly kind: 'succeeded';
      /** What it adds to the spend: the service's figure; 0 when an earlier run paid it (paidBefore). */
      readonly creditsUsed: Micros | null;
      readonly file: string;
      /** Its first link had expired: the service gave a fresh one (absent: not needed). */
      readonly refreshed?: true;
      readonly underived?: Underived;
    }
  | {
      readonly kind: 'failed';
      readonly creditsUsed: Micros | null;
      readonly message: string;
      /** The failure policy's kind, when it is not a failed prediction's (download_failed, …). */
      readonly failure?: FailureKind;
    }
  | { readonly kind: 'canceled' };

export interface FinishResult {
  readonly outcome: FinishOutcome;
  /** The heir's create, or null when none was asked for or its parent was canceled. */
  readonly heir: CreateOutcome | null;
  /** Created → ended, ms; null when the job was found finished already. */
  readonly waitedMs: number | null;
  /** Worker clock when the finish returned (moves the campaign clock). */
  readonly at: number;
}

/**
 * The predictions of one step of a create batch, finished by one activity (finishPredictions):
 * one activity per batch instead of per job keeps the history (and so its roll-overs and the
 * server's work) small. Each item is a FinishRequest without the campaign's context.
 */
export interface FinishBatchRequest {
  readonly campaign: string;
  readonly plan: PlanRef;
  readonly outputDir: string;
  readonly items: readonly FinishBatchRequestItem[];
}

/**
 * One item of a batch. `heir` (absent: none named): the job to create the moment this prediction
 * ends, as FinishRequest's, so a window-bound campaign's slots pass straight on without an
 * activity per job (docs/engine.md, "The ceiling").
 */
export type FinishBatchRequestItem = Omit<FinishRequest, 'campaign' | 'plan' | 'outputDir' | 'heir'> & {
  readonly heir?: CreateItem;
};

/**
 * Each item's result, in the request's order: finished (FinishResult), or stopped by
 * a failure that stops the campaign (disk full, a deleted key…), which keeps the job for the next
 * run; the batch's other items are reported all the same. Any other failure fails the activity,
 * which is retried: items already recorded then return at once. Items still running when others
 * ended a second before are `pending`: each job is reported about as it ends.
 */
export type FinishBatchItem =
  | ({ readonly kind: 'finished' } & FinishResult)
  | { readonly kind: 'stopped'; readonly failure: FailureKind; readonly message: string }
  /**
   * Still running when others of the batch had ended a while (activities/finish/batch.ts,
   * REPORT_AFTER_MS): the workflow finishes it in a new batch, which joins the work under way.
   */
  | { readonly kind: 'pending' };

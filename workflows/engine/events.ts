/**
 * What can happen to a campaign, as `step` (step.ts) takes it: every activity result,
 * signal, update and timer of the workflow becomes one of these, and nothing else moves the
 * campaign. Plain data: a test builds them by hand.
 */
import type { CreateOutcome, FinishBatchItem } from '../../contract/activities.ts';
import type { InFlightJob, JobRef, PendingJob, ServiceLimits } from '../../contract/campaign.ts';
import type { CapAlert } from '../../contract/caps.ts';
import type { CapsGrant } from '../../contract/caps-messages.ts';
import type { FailureKind } from '../../contract/failure-policy.ts';
import type { Share } from '../../contract/governor-messages.ts';
import type { ReviewDecision } from '../../contract/review.ts';
import type { Span } from './reviews/review-rules.ts';

/**
 * An activity that failed for good: the failure-policy kind its error carried (null: none, as in
 * older histories) and the words for the user. `step` reads what it calls for: a stop of the whole
 * campaign, or a failure of its jobs alone.
 */
export interface Lost {
  readonly failure: FailureKind | null;
  readonly message: string;
}

/** What the loop knows of its workflow run when it asks what to do next (workflowInfo, workflow time). */
export interface Tick {
  readonly kind: 'tick';
  readonly historyLength: number;
  readonly continueAsNewSuggested: boolean;
  /** Workflow time as ISO text: a timestamp for decisions' records, never a decision. */
  readonly at: string;
}

export type CampaignEvent =
  /** The loop asks what to do next. */
  | Tick
  /**
   * The run starts: predictions carried over from the previous run are waited for again.
   * `joinedOthers`: the governor's first share was less than the whole key, so others are creating.
   */
  | { readonly kind: 'started'; readonly joinedOthers: boolean }
  /** A wait the loop started at campaign-clock `from` ran its full `ms`. */
  | { readonly kind: 'slept'; readonly from: number; readonly ms: number }
  /** The wall-clock pulse (runtime/pulse.ts), started at campaign-clock `from`, fired after `ms`. */
  | { readonly kind: 'pulse'; readonly from: number; readonly ms: number }
  /** A create batch answered, one outcome per job. */
  | {
      readonly kind: 'created';
      readonly batch: readonly PendingJob[];
      readonly outcomes: readonly CreateOutcome[];
    }
  | { readonly kind: 'create-lost'; readonly batch: readonly PendingJob[]; readonly lost: Lost | null }
  /** The predictions of one step (finishPredictions), one result each, heirs' creates included. */
  | {
      readonly kind: 'batch-finished';
      readonly flights: readonly InFlightJob[];
      /** The batch waited for predictions an earlier run handed over: their waits are not latencies. */
      readonly resumed?: true;
      readonly results: readonly FinishBatchItem[];
    }
  /** `lost` null: the activity was canceled with the campaign. */
  | { readonly kind: 'batch-lost'; readonly flights: readonly InFlightJob[]; readonly lost: Lost | null }
  /** The service's limits as read (readServiceLimits). */
  | { readonly kind: 'limits-read'; readonly limits: ServiceLimits }
  /** Jobs of the plan read into the window (loadJobs at the cursor). */
  | { readonly kind: 'jobs-loaded'; readonly jobs: readonly JobRef[] }
  /** Jobs read again for plan indexes that review decisions released. */
  | { readonly kind: 'released'; readonly span: Span; readonly jobs: readonly JobRef[] }
  /**
   * A read or record of the loop (limits, jobs, released jobs, decisions) failed for good, with
   * the failure-policy kind its error carried (null: none, as in older histories).
   */
  | { readonly kind: 'read-failed'; readonly failure: FailureKind | null; readonly message: string }
  /** Decisions of a reviewer's batch could not be recorded (the `review` update fails with the reason). */
  | { readonly kind: 'record-failed'; readonly failure: FailureKind | null; readonly message: string }
  /** A reviewer's batch of decisions (the `review` update); `at` is the record's timestamp. */
  | { readonly kind: 'review'; readonly decisions: readonly ReviewDecision[]; readonly at: string }
  /** The key's rate governor signalled this campaign's share. */
  | { readonly kind: 'share'; readonly share: Share }
  /** The key's caps ledger granted reservation, or a cap holds the campaign (docs/caps.md). */
  | { readonly kind: 'caps-grant'; readonly grant: CapsGrant }
  /** A spend cap's threshold was crossed: the campaign's targets are told. */
  | { readonly kind: 'cap-alert'; readonly alert: CapAlert }
  /** A notice's delivery to one target ended: `failure` (`host: reason`) null when it was taken. */
  | { readonly kind: 'notified'; readonly failure: string | null }
  /** The campaign is being canceled: reports from now on change nothing. */
  | { readonly kind: 'cancel-requested' }
  /** The predictions it claimed were canceled upstream (a `cancel-upstream` effect's pass ended). */
  | { readonly kind: 'canceled'; readonly after: CancelPass };

/**
 * The passes of a cancel: once the creates under way have landed (so the claims log names their
 * predictions), and once more after the finishes creating heirs have reported, when any were.
 */
export type CancelPass = 'creates' | 'heirs';

/**
 * The one table that says what a failure does. A failure is classified once, where it is seen
 * (api/client/errors.ts for the service, activities for local I/O), into a `FailureKind`; what
 * follows from that kind (retry the attempt, send the job back to the queue, regenerate it, fail
 * it, skip it, stop the campaign) is read here, by the activities and by the workflow alike.
 *
 * Pure data and pure functions: the workflow bundle imports this module, so it must stay
 * deterministic (no clocks, no I/O, no Node modules).
 */
import type { CampaignOutcome } from './campaign.ts';

export type FailureKind =
  /** 429, or a batch item refused for the rate: surely not created. */
  | 'rate_limited'
  /** 5xx, network, timeout: may pass; the request may have reached the service. */
  | 'transient'
  /** The account has no credits left for this prediction. */
  | 'insufficient_credits'
  /** Any other final refusal of a create (invalid input, unknown model…). */
  | 'rejected'
  /** The create activity gave up (its retries ended): whether it created anything is reconciled later. */
  | 'create_gave_up'
  /** The prediction ended failed, or its output could not be fetched for good. */
  | 'prediction_failed'
  /** The finish activity gave up: treated like a failed prediction. */
  | 'finish_gave_up'
  /**
   * Every bounded fetch of an output came short of its Content-Length (or cut off): the job
   * fails, paid; the service keeps the prediction, so a later run adopts it and fetches it again.
   */
  | 'download_failed'
  /** As download_failed, the last fetch too slow (under the minimum rate, or past the deadline). */
  | 'download_stalled'
  /** The output link expired and the service no longer has the output: a new take, within budget. */
  | 'output_expired'
  /** The job's parent has no output (failed, skipped or canceled). */
  | 'parent_missing'
  /** ENOSPC, EDQUOT writing an output or a record. */
  | 'disk_full'
  /** EROFS, EACCES, EPERM writing into the output folder. */
  | 'output_unwritable'
  /** A worker cannot read the stored plan (another machine, a missing volume, a changed file). */
  | 'plan_unreadable'
  /** 401/403 on a key that worked: it was deleted or rotated. */
  | 'authentication_failed'
  /**
   * The service's content policy refused the job: its prompt at create (nothing made, nothing
   * paid) or its output after processing (paid). Never retried blindly: the step's `on_refusal`.
   */
  | 'refused'
  /** The prediction ran past its step's `timeout:` and was canceled upstream. */
  | 'timed_out'
  /**
   * An outage: 5xx, timeouts or connection refused through several attempts of one create
   * (OUTAGE_AFTER_ATTEMPTS). Not a failure of the jobs: they wait while the campaign pauses.
   */
  | 'service_unavailable';

export type FailureEffect =
  /** Throw a retryable activity failure: Temporal tries the same attempt again (Retry-After honoured). */
  | { readonly kind: 'retry_attempt' }
  /** Back to the front of the queue, nothing committed; pacing pauses and the limits are read again. */
  | { readonly kind: 'requeue' }
  /**
   * A new take of the same job (next regeneration) while the step's `retries` allow, else fail it
   * (or, with `endsAs`, end it under that outcome: its descendants are skipped all the same).
   */
  | { readonly kind: 'regenerate'; readonly endsAs?: 'timed_out' }
  /**
   * What the job's step says in `on_refusal:`: end it refused (`skip`, the default; descendants
   * are skipped), a new take (`retry: N`), or a take on another model (`fallback: <model>`).
   */
  | { readonly kind: 'on_refusal' }
  /** The job ends failed with the reason; its descendants are skipped when they reach the create. */
  | { readonly kind: 'fail_job' }
  /** The job ends skipped: nothing was created, nothing paid. */
  | { readonly kind: 'skip_job' }
  /**
   * No new job starts: the campaign ends with `outcome` once in-flight work lands. The job that met
   * it fails (`fail`), or stays to be done by the next run once the user fixed the cause (`keep`).
   */
  | {
      readonly kind: 'stop_campaign';
      readonly outcome: Exclude<CampaignOutcome, 'running' | 'completed'>;
      readonly job: 'fail' | 'keep';
    }
  /**
   * The jobs go back to the queue, nothing failed; no create is sent until the pause ends (backing
   * off while the cause lasts: workflows/engine/pacing/outage.ts), then the campaign resumes by itself.
   */
  | { readonly kind: 'pause_campaign' };

export const FAILURE_POLICY: Readonly<Record<FailureKind, FailureEffect>> = {
  rate_limited: { kind: 'requeue' },
  transient: { kind: 'retry_attempt' },
  insufficient_credits: { kind: 'stop_campaign', outcome: 'balance_exhausted', job: 'fail' },
  rejected: { kind: 'fail_job' },
  create_gave_up: { kind: 'fail_job' },
  prediction_failed: { kind: 'regenerate' },
  finish_gave_up: { kind: 'regenerate' },
  // Not regenerate: a new take is a new payment, and the paid one is still at the service.
  download_failed: { kind: 'fail_job' },
  download_stalled: { kind: 'fail_job' },
  output_expired: { kind: 'regenerate' },
  parent_missing: { kind: 'skip_job' },
  disk_full: { kind: 'stop_campaign', outcome: 'disk_full', job: 'keep' },
  output_unwritable: { kind: 'stop_campaign', outcome: 'output_unwritable', job: 'keep' },
  plan_unreadable: { kind: 'stop_campaign', outcome: 'plan_unreadable', job: 'keep' },
  authentication_failed: { kind: 'stop_campaign', outcome: 'authentication_failed', job: 'keep' },
  refused: { kind: 'on_refusal' },
  timed_out: { kind: 'regenerate', endsAs: 'timed_out' },
  service_unavailable: { kind: 'pause_campaign' },
};

/**
 * Attempts of one create that meet a passing fault (5xx, timeout, connection refused) before it
 * is taken as an outage: a blip is retried within the activity (about a second), an outage pauses.
 */
export const OUTAGE_AFTER_ATTEMPTS = 4;

const KINDS = new Set<string>(Object.keys(FAILURE_POLICY));

export function isFailureKind(value: unknown): value is FailureKind {
  return typeof value === 'string' && KINDS.has(value);
}

export function effectOf(kind: FailureKind): FailureEffect {
  return FAILURE_POLICY[kind];
}

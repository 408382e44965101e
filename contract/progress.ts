/**
 * A campaign's progress: what the workflow publishes (its memo while it runs, its result when it
 * ends) and what `run`, `status` and `cancel` read back. Schemas first, types derived from them:
 * clients parse what they read from Temporal, never cast it. The workflow imports the types only,
 * so zod stays out of the workflow bundle.
 */
import { z } from 'zod';
import { ModelLabel } from '../api/catalogue/models.ts';

export const CampaignOutcome = z.enum([
  'running',
  'completed',
  'budget_reached',
  'balance_exhausted',
  'canceled',
  // A condition of the whole campaign that retrying cannot fix: the user can (docs/engine.md).
  'disk_full',
  'output_unwritable',
  'plan_unreadable',
  'authentication_failed',
]);
export type CampaignOutcome = z.infer<typeof CampaignOutcome>;

const count = z.number().int().nonnegative();
/** Exact money, integer micro-dollars (api/money.ts). */
const micros = z.number().int();

export const StepCounts = z.object({
  /** Finished in this campaign run (predictions created and downloaded). */
  succeeded: count,
  /** Already in the manifest from an earlier run: nothing created, nothing paid. */
  cached: count,
  failed: count,
  /** Not run because an ancestor failed or was canceled. */
  skipped: count,
  canceled: count,
  /** Predictions created, including regenerations. */
  created: count,
  /**
   * Extra takes: jobs made again after their prediction failed, their file was lost or a reviewer
   * asked for a retake. A job being made again is counted as running or waiting, not succeeded.
   */
  regenerated: count,
  /**
   * Ended refused by the service's content policy (a prompt refused at create, an output flagged
   * after processing) once the step's `on_refusal` had nothing more to try. Absent in older memos.
   */
  refused: count.optional(),
  /** Ended past the step's `timeout:`, canceled upstream (absent in older memos). */
  timed_out: count.optional(),
  /**
   * Named download outcomes (absent until one happens, and in older memos): jobs failed because
   * every bounded fetch of their output came short or stalled, outputs the service no longer had
   * when their link expired (made again: counted in `regenerated` too, or `failed` past the
   * step's retries), and outputs fetched on a fresh link after theirs expired.
   */
  download_failed: count.optional(),
  download_stalled: count.optional(),
  outputs_expired: count.optional(),
  links_refreshed: count.optional(),
});
export type StepCounts = z.infer<typeof StepCounts>;

export const Failure = z.object({ job: z.string(), step: z.string(), message: z.string() });
export type Failure = z.infer<typeof Failure>;

export const StepProgress = StepCounts.extend({
  id: z.string(),
  model: ModelLabel,
  planned: count,
  running: count,
  waiting: count,
  /** Paid for the step in this run, retakes and charged failures included (absent in older memos). */
  spent: micros.optional(),
  /** Reviewed steps only (absent in older memos): outputs waiting for a decision, and decisions so far. */
  awaiting_review: count.optional(),
  approved: count.optional(),
  rejected: count.optional(),
});
export type StepProgress = z.infer<typeof StepProgress>;

export const CampaignProgress = z.object({
  campaign: z.string(),
  outcome: CampaignOutcome,
  steps: z.array(StepProgress),
  spent: micros,
  /** Price of the predictions in flight: spent + committed never passes the budget. */
  committed: micros,
  /**
   * Price of the predictions created at the service and not ended: `committed` also holds jobs
   * still being created, which a re-run may find recorded and not pay (absent in older memos).
   */
  inFlight: micros.optional(),
  budget: micros.nullable(),
  recentFailures: z.array(Failure),
  /** Why the campaign stopped early, in the words of the failure that stopped it (absent: older runs). */
  stopMessage: z.string().nullable().optional(),
  /** When the campaign's first run started (its start event), ms since the epoch. */
  startedAt: z.number(),
  /**
   * False once submission stopped (a budget, a stop, a cancel) while the predictions in flight
   * land: the jobs not started will not run in this campaign. Absent in older memos.
   */
  submitting: z.boolean().optional(),
  /**
   * When this snapshot was taken, ms since the epoch (the campaign clock): `etaMs` counts from
   * here, so a reader of an old memo (a detached campaign) sees the time left run out. Absent in
   * older memos.
   */
  at: z.number().optional(),
  /** Estimated milliseconds to the end, from the completion rate so far; null until known. */
  etaMs: z.number().nullable(),
  /** Workflow runs so far (continue-as-new count + 1). */
  runs: count,
  /**
   * Reviewed derive steps only (docs/review.md, "Derivatives"), in the plan's order: their files
   * waiting for a decision. A derivative is not a job of its parent's step, so these are not in
   * the steps' `awaiting_review`. Absent without such steps, and in older memos.
   */
  derivedAwaiting: z.array(z.object({ step: z.string(), awaiting: count })).optional(),
  /** Notices delivered and failed (docs/notifications.md); absent without `notify` targets. */
  notifications: z.object({ delivered: count, failed: count, failures: z.array(z.string()) }).optional(),
  /**
   * Set while a spend cap of the key holds the campaign (docs/caps.md): `monthly $5,000 (spent
   * $4,987.20)`. It resumes by itself when the cap is raised or its period turns.
   */
  cap_reached: z.string().optional(),
  /**
   * Set while the campaign pauses on its own and resumes by itself: the service is down
   * (failure kind `service_unavailable`, workflows/engine/pacing/outage.ts). Times are ms since the epoch
   * (campaign clock): since when, and the next try. Absent otherwise, and in older memos.
   */
  paused: z
    .object({
      kind: z.literal('service_unavailable'),
      reason: z.string(),
      since: z.number(),
      until: z.number(),
    })
    .optional(),
});
export type CampaignProgress = z.infer<typeof CampaignProgress>;

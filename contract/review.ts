/**
 * Review gates (docs/spec-format.md "review"): what a reviewer decides about a job of a reviewed
 * step, how decisions reach the campaign workflow (one Temporal update, in batches) and how they
 * are recorded. Neutral ground: the workflow imports the types only (zod stays out of its bundle);
 * the review page, the CLI and the activities parse with the schemas.
 */
import { z } from 'zod';

/** approve: its descendants may start. reject: they are skipped, at no cost. regenerate: a new take. */
export const ReviewAction = z.enum(['approve', 'reject', 'regenerate']);
export type ReviewAction = z.infer<typeof ReviewAction>;

export const ReviewDecision = z.object({
  /** The job's key (plan/keys.ts): decisions are keyed by it, so they survive re-runs. */
  key: z.string().min(1),
  action: ReviewAction,
  /** A new prompt for a regeneration, only where the step's `review.edit_prompt` allows it. */
  prompt: z.string().min(1).optional(),
  note: z.string().max(2000).optional(),
  /** Who decided, when known (the page's or the CLI's user). */
  by: z.string().max(200).optional(),
});
export type ReviewDecision = z.infer<typeof ReviewDecision>;

/** The `review` update's argument: many decisions at once, so 1,000 approvals are a few updates. */
export const ReviewBatch = z.object({ decisions: z.array(ReviewDecision).min(1).max(500) });
export type ReviewBatch = z.infer<typeof ReviewBatch>;

/** Why the workflow refused one decision of a batch; the others still apply. */
export const RefusalReason = z.enum([
  'unknown_job', // no job of a reviewed step has this key
  'not_awaiting_review', // decided already, still generating, or failed
  'over_budget', // a regeneration (or the approval's descendants) would pass budget.max_usd
  'prompt_not_editable', // a new prompt where the step does not allow one
  'prompt_invalid', // a new prompt the job's model would refuse (too long): refused before sending
  'campaign_ended',
  'not_regenerable', // a derivative: the same operations make the same bytes
]);
export type RefusalReason = z.infer<typeof RefusalReason>;

export const ReviewAck = z.object({
  accepted: z.array(z.string()),
  refused: z.array(z.object({ key: z.string(), reason: RefusalReason, message: z.string() })),
});
export type ReviewAck = z.infer<typeof ReviewAck>;

/** A decision as recorded (created once per job key and take) beside the manifest. */
export const DecisionRecord = ReviewDecision.extend({
  /** The regeneration counter of the take that was decided. */
  take: z.number().int().nonnegative(),
  /** ISO time the workflow accepted it. */
  at: z.string(),
  /** 'timeout' when the step's review.timeout decided for the reviewer. */
  source: z.enum(['reviewer', 'timeout']),
});
export type DecisionRecord = z.infer<typeof DecisionRecord>;

export { REVIEW_UPDATE } from './review-update.ts';

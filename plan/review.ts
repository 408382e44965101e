/**
 * A step's review gate (docs/spec-format.md, "Review gates"): as written in the spec, and as the
 * plan and the engine carry it. Defaults: no timeout (a job waits for its decision as long as the
 * campaign lives), `on_timeout: reject` (spending on descendants needs someone's yes), and
 * `edit_prompt: false` (a regeneration re-rolls the same input unless the spec allows a new prompt).
 */
import { z } from 'zod';

/** `30m`, `72h`, `7d`: a whole number and a unit; our own tiny format, since the spec has one unit rule. */
const DURATION = /^([1-9]\d{0,5})(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_RULE = 'must be a duration like "30m", "72h" or "7d" (a whole number of s, m, h or d)';

export const ReviewTimeout = z.string().regex(DURATION, { error: DURATION_RULE }).meta({
  description: 'How long a job waits for a decision before on_timeout decides: "30m", "72h", "7d".',
});

export const ReviewSpec = z
  .union(
    [
      z.boolean(),
      z.strictObject({
        timeout: ReviewTimeout.optional(),
        on_timeout: z.enum(['reject', 'approve']).optional().meta({
          description: 'What a timeout decides (default reject: descendants are skipped, at no cost).',
        }),
        edit_prompt: z.boolean().optional().meta({
          description: 'Whether a reviewer may give a new prompt with a regeneration (default false).',
        }),
      }),
    ],
    { error: 'must be true, false or a mapping of timeout, on_timeout and edit_prompt' },
  )
  .meta({
    description:
      'Each job waits, once its output is saved, for a decision: approve (its descendants may start), reject (they are skipped) or regenerate (a new take). `true` for the defaults.',
  });
export type ReviewSpec = z.infer<typeof ReviewSpec>;

/** The gate as the plan stores it and the workflow reads it. */
export const ReviewRule = z
  .object({
    /** Milliseconds a job waits for a decision; null: as long as the campaign lives. */
    timeoutMs: z.number().int().positive().nullable(),
    onTimeout: z.enum(['reject', 'approve']),
    editPrompt: z.boolean(),
  })
  .readonly();
export type ReviewRule = z.infer<typeof ReviewRule>;

export function durationMs(text: string): number {
  const match = DURATION.exec(text);
  if (!match) throw new Error(`${JSON.stringify(text)} ${DURATION_RULE}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** The rule of a step's `review:` field; null for a step without a gate (absent or `false`). */
export function reviewRuleOf(review: ReviewSpec | undefined): ReviewRule | null {
  if (review === undefined || review === false) return null;
  const options = review === true ? {} : review;
  return {
    timeoutMs: options.timeout === undefined ? null : durationMs(options.timeout),
    onTimeout: options.on_timeout ?? 'reject',
    editPrompt: options.edit_prompt ?? false,
  };
}

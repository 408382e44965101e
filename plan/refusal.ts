/**
 * What a step does when the service's content policy refuses one of its jobs (docs/spec-format.md,
 * "Refusals and deadlines"): as written in the spec (`on_refusal:`), and as the plan and the engine
 * carry it. A refusal is never retried blindly: the same prompt is usually refused again, and a
 * flagged output was paid for, so every further take is the spec's explicit choice and is bounded.
 */
import { z } from 'zod';
import { ModelLabel } from '../api/catalogue/models.ts';
import { durationMs } from './review.ts';

export const MAX_REFUSAL_RETRIES = 5;

export const OnRefusal = z
  .union(
    [
      z.literal('skip'),
      z.strictObject({
        retry: z
          .int()
          .min(1)
          .max(MAX_REFUSAL_RETRIES)
          .meta({
            description: `New takes (a new seed) after a refusal, at most ${MAX_REFUSAL_RETRIES}; each is paid and counted against the budget.`,
          }),
      }),
      z.strictObject({
        fallback: ModelLabel.meta({
          description: 'Another model of the same kind, given the same input, tried once after a refusal.',
        }),
      }),
    ],
    { error: 'must be skip, { retry: N } or { fallback: <model> }' },
  )
  .meta({
    description:
      'What a content refusal (a prompt refused at create, an output flagged) does: skip (default: the job ends refused, its descendants are skipped, the campaign goes on), { retry: N } or { fallback: <model> }.',
  });
export type OnRefusal = z.infer<typeof OnRefusal>;

/** The rule as the plan stores it and the workflow reads it. */
export const RefusalRule = z.union([
  z.object({ kind: z.literal('skip') }).readonly(),
  z.object({ kind: z.literal('retry'), times: z.number().int().positive() }).readonly(),
  z.object({ kind: z.literal('fallback'), model: ModelLabel }).readonly(),
]);
export type RefusalRule = z.infer<typeof RefusalRule>;

/** The rule of a step's `on_refusal:`; null when absent (skip, without changing the plan's digest). */
export function refusalRuleOf(onRefusal: OnRefusal | undefined): RefusalRule | null {
  if (onRefusal === undefined) return null;
  if (onRefusal === 'skip') return { kind: 'skip' };
  return 'retry' in onRefusal
    ? { kind: 'retry', times: onRefusal.retry }
    : { kind: 'fallback', model: onRefusal.fallback };
}

/** Further takes a refusal may cost at most: what the preflight's worst case adds per job. */
export function extraTakes(rule: RefusalRule | null | undefined): number {
  if (!rule || rule.kind === 'skip') return 0;
  return rule.kind === 'retry' ? rule.times : 1;
}

/** `timeout:` as milliseconds (the review gate's duration format: "90s", "10m", "2h"). */
export function stepTimeoutMs(timeout: string | undefined): number | null {
  return timeout === undefined ? null : durationMs(timeout);
}

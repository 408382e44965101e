/**
 * The runtime's side of review gates (docs/spec-format.md, "Review gates"): the `review` update,
 * whose decisions `step` takes (engine/reviews/decisions.ts) and which answers once they are
 * recorded, and the timer that wakes the loop when a take times out, at the deadline the engine
 * computes (engine/reviews/reviews.ts, dueAt: read, never written). Only campaigns with a
 * reviewed step use any of this.
 */
import { ApplicationFailure, condition, isCancellation, setHandler } from '@temporalio/workflow';
import type { StepInfo } from '../../contract/campaign.ts';
import { reviewUpdate } from '../../contract/campaign-messages.ts';
import type { ReviewAck, ReviewBatch } from '../../contract/review.ts';
import type { Model } from '../engine/model.ts';
import { dueAt } from '../engine/reviews/timeouts.ts';
import { refusalOfReview, step } from '../engine/step.ts';
import type { Executor } from './executor.ts';

export function hasGates(steps: readonly StepInfo[]): boolean {
  // A reviewed derive step's files are gated too (StepInfo.derived); inputs without one as before.
  return steps.some((step) => step.review !== undefined || step.derived !== undefined);
}

export function reviewGates(model: Model, executor: Executor): void {
  const { jobs, clock } = model;
  setHandler(
    reviewUpdate,
    async (batch: ReviewBatch): Promise<ReviewAck> => {
      executor.wake();
      // Workflow time of this task: a timestamp for the record, never a decision.
      const effects = step(model, {
        kind: 'review',
        decisions: batch.decisions,
        at: new Date().toISOString(),
      });
      let ack: ReviewAck | undefined;
      for (const effect of effects) {
        if (effect.kind === 'acknowledge') ack = effect.ack;
        else if (effect.kind !== 'record-decisions') await executor.run(effect);
        else {
          try {
            await executor.record(effect.records);
          } catch (error) {
            // Unrecordable (a full disk…): the campaign stops with that outcome, as for any file
            // it cannot write, and the update fails with the reason; a re-run asks for these again.
            executor.recordFailed(error);
            throw error;
          }
        }
      }
      return ack!;
    },
    {
      validator(batch: ReviewBatch) {
        const refusal = refusalOfReview(model, batch);
        if (!refusal) return;
        throw ApplicationFailure.create({
          type: refusal.ack ? 'ReviewRefused' : 'ReviewInvalid',
          message: refusal.message,
          ...(refusal.ack && { details: [refusal.ack] }),
          nonRetryable: true,
        });
      },
    },
  );
  void watchDeadlines().catch((error: unknown) => {
    // Canceled with the campaign (its timer and conditions are): the cancel path takes over. Left
    // unhandled, the rejection failed every workflow task of a canceled reviewed campaign, forever.
    if (!isCancellation(error)) throw error;
  });

  /**
   * Wakes the loop when the earliest take awaiting review times out. A timer of its own, because
   * the campaign clock moves only with facts in history: an update waking the loop early must not
   * push a deadline back.
   */
  async function watchDeadlines(): Promise<void> {
    for (;;) {
      await condition(() => dueAt(jobs.reviews, jobs.steps) !== null);
      const due = dueAt(jobs.reviews, jobs.steps)!;
      const from = clock.at;
      if (due > from) {
        const sooner = () => (dueAt(jobs.reviews, jobs.steps) ?? Number.POSITIVE_INFINITY) < due;
        if (await condition(sooner, due - from)) continue;
        executor.dispatch({ kind: 'slept', from, ms: due - from });
      }
      executor.wake();
      await condition(() => (dueAt(jobs.reviews, jobs.steps) ?? Number.POSITIVE_INFINITY) > clock.at);
    }
  }
}

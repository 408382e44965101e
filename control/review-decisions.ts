/**
 * Review decisions on their way to a campaign: one `review` update per batch, acknowledged by the
 * workflow, sent to whichever run carries the campaign (handover.ts), so a decision made while a
 * newer engine takes the campaign over is taken by the run that continues it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { REVIEW_UPDATE, ReviewAck, type ReviewBatch, type ReviewDecision } from '../contract/review.ts';
import { acrossRuns, HANDOVER_PATIENCE, type Patience } from './handover.ts';

/** The refusals a validator rejected a whole batch with: an answer, not an error. */
function refusalsOf(error: unknown): ReviewAck | null {
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure))
    return null;
  const parsed = ReviewAck.safeParse(error.cause.details?.[0]);
  return parsed.success ? parsed.data : null;
}

/**
 * What sends a batch and returns what the campaign accepted and refused (the review pages' and the
 * decision commands' SendBatch). `ready` runs before each send (it throws when the campaign ended).
 * A run that continues the campaign from its records finds its takes unread, then still
 * generating, until it has read them back: after a handover, decisions it refused as unknown or not
 * awaiting review are sent again until taken or `patience` runs out, when the last refusals stand
 * (a key no run knows is refused only then).
 */
export function decisionSender(
  client: Client,
  handle: WorkflowHandle,
  ready: () => Promise<void>,
  patience: Patience = HANDOVER_PATIENCE,
): (batch: ReviewBatch) => Promise<ReviewAck> {
  const send = async (decisions: readonly ReviewDecision[]): Promise<ReviewAck> => {
    await ready();
    try {
      return ReviewAck.parse(await handle.executeUpdate(REVIEW_UPDATE, { args: [{ decisions }] }));
    } catch (error) {
      const refusals = refusalsOf(error);
      if (refusals) return refusals;
      throw error;
    }
  };
  const notYet = new Set<string>(['unknown_job', 'not_awaiting_review']);
  return async (batch) => {
    const deadline = Date.now() + patience.ms;
    const accepted: string[] = [];
    const refused: ReviewAck['refused'][number][] = [];
    let pending = batch.decisions;
    let handedOver = false;
    for (;;) {
      const sent = await acrossRuns(client, handle, () => send(pending), patience);
      handedOver ||= sent.resent;
      accepted.push(...sent.value.accepted);
      const again = handedOver ? sent.value.refused.filter((r) => notYet.has(r.reason)) : [];
      const last = again.length === 0 || Date.now() >= deadline;
      refused.push(...(last ? sent.value.refused : sent.value.refused.filter((r) => !again.includes(r))));
      if (last) return { accepted, refused };
      const keys = new Set(again.map((refusal) => refusal.key));
      pending = pending.filter((decision) => keys.has(decision.key));
      await sleep(patience.everyMs);
    }
  };
}

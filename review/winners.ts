/**
 * Two reviewers on one sheet may decide the same take at once: the workflow accepts the first and
 * refuses the second as `not_awaiting_review`. The loser is told whose decision won and what it
 * was (the recorded decision, written before the winner's acknowledgement), not only "decided
 * already", so they need not guess whether their own tab or a colleague's got there first.
 */
import type { ReviewAck } from '../contract/review.ts';
import type { CampaignModel } from './model.ts';

const PAST: Record<string, string> = {
  approve: 'approved',
  reject: 'rejected',
  regenerate: 'sent to regenerate',
};

export function withWinners(ack: ReviewAck, model: CampaignModel): ReviewAck {
  if (!ack.refused.some((refusal) => refusal.reason === 'not_awaiting_review')) return ack;
  const decided = decisionsOf(model);
  return {
    accepted: ack.accepted,
    refused: ack.refused.map((refusal) => {
      const won = refusal.reason === 'not_awaiting_review' ? decided.get(refusal.key) : undefined;
      if (won?.source !== 'reviewer') return refusal;
      const by = won.by ? ` by ${won.by}` : '';
      return {
        ...refusal,
        message: `${PAST[won.action] ?? won.action}${by} at ${won.at} (take ${won.take}): their decision stands`,
      };
    }),
  };
}

/**
 * Whether a refusal for a take decided already names a take whose decision is not recorded yet.
 * The workflow refuses the second decision as soon as it has accepted the first, while the first's
 * record is still being written: read the records again before telling the loser who won.
 */
export function winnerUnrecorded(ack: ReviewAck, model: CampaignModel): boolean {
  const decided = decisionsOf(model);
  return ack.refused.some((refusal) => refusal.reason === 'not_awaiting_review' && !decided.has(refusal.key));
}

function decisionsOf(model: CampaignModel) {
  return new Map(
    model.steps.flatMap((step) =>
      step.items.flatMap((item) => (item.decision ? [[item.key, item.decision] as const] : [])),
    ),
  );
}

/**
 * Decisions sent across a handover (control/review-decisions.ts): the run that continues a
 * campaign finds its takes still generating until it has read them back, so after a handover
 * those refusals are sent again until taken; without a handover a refusal stands at once.
 */
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { ReviewAck, ReviewBatch } from '../../contract/review.ts';
import { decisionSender } from '../../control/review-decisions.ts';

const patience = { ms: 2_000, everyMs: 10 };
const stillGenerating = (key: string) => ({
  key,
  reason: 'not_awaiting_review' as const,
  message: 'still generating: no output to review yet',
});

/** A campaign whose update answers each of `answers` in turn (an Error is thrown). */
function campaign(...answers: (ReviewAck | Error)[]) {
  const sent: string[][] = [];
  const handle = {
    workflowId: 'mediaflow-launch',
    describe: async () =>
      ({ runId: 'r2', status: { name: 'RUNNING' }, memo: {} }) as unknown as WorkflowExecutionDescription,
    executeUpdate: async (_: string, { args: [batch] }: { args: [ReviewBatch] }) => {
      sent.push(batch.decisions.map((decision) => decision.key));
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as WorkflowHandle;
  return { handle, sent };
}

const batch: ReviewBatch = {
  decisions: [
    { key: 'kettle', action: 'approve' },
    { key: 'lamp', action: 'reject' },
  ],
};
const ready = async () => {};

describe('decisions at a handover', () => {
  it('are sent again to the continuing run while it still reads its takes back', async () => {
    const { handle, sent } = campaign(
      new WorkflowNotFoundError(
        'workflow update was aborted by closing workflow',
        'mediaflow-launch',
        undefined,
      ),
      { accepted: ['kettle'], refused: [stillGenerating('lamp')] },
      { accepted: ['lamp'], refused: [] },
    );
    expect(await decisionSender({} as Client, handle, ready, patience)(batch)).toEqual({
      accepted: ['kettle', 'lamp'],
      refused: [],
    });
    expect(sent).toEqual([['kettle', 'lamp'], ['kettle', 'lamp'], ['lamp']]);
  });

  it('without a handover, are refused at once', async () => {
    const { handle, sent } = campaign({ accepted: ['kettle'], refused: [stillGenerating('lamp')] });
    expect(await decisionSender({} as Client, handle, ready, patience)(batch)).toEqual({
      accepted: ['kettle'],
      refused: [stillGenerating('lamp')],
    });
    expect(sent).toHaveLength(1);
  });
});

/**
 * What a client does with a call the run it reached could not take (control/handover.ts): sent
 * again once the campaign's current run is known, refused with a reason to retry past its patience,
 * and thrown as it came for any other error.
 */
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ENGINE } from '../../contract/engine.ts';
import { acrossRuns, continuedReason, continuingEngineOf } from '../../control/handover.ts';

const patience = { ms: 300, everyMs: 10 };
const client = {} as Client;
const running = {
  workflowId: 'mediaflow-launch',
  describe: async () =>
    ({
      runId: 'r2',
      status: { name: 'RUNNING' },
      memo: { engine: ENGINE },
    }) as unknown as WorkflowExecutionDescription,
} as unknown as WorkflowHandle;

/** A send that fails with each of `errors` in turn, then answers 'taken'. */
function failing(...errors: Error[]) {
  let calls = 0;
  const send = async () => {
    const error = errors[calls++];
    if (error) throw error;
    return 'taken';
  };
  return { send, calls: () => calls };
}

const acceptedThenClosed = () =>
  new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({
      type: 'AcceptedUpdateCompletedWorkflow',
      message: 'Workflow Update failed because the Workflow completed before the Update completed.',
    }),
  );
const abortedByClose = () =>
  new WorkflowNotFoundError('workflow update was aborted by closing workflow', 'mediaflow-launch', undefined);
const noHandlerYet = () =>
  new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.nonRetryable('No registered handler for update: review'),
  );

describe('a call that reached a closing run', () => {
  it.each([
    ['aborted as its run was ended', abortedByClose],
    ['accepted, then its run continued as new', acceptedThenClosed],
    ['sent to a run not yet handling it', noHandlerYet],
  ])('is sent again to the current run when %s', async (_, error) => {
    const { send, calls } = failing(error());
    expect(await acrossRuns(client, running, send, patience)).toEqual({ value: 'taken', resent: true });
    expect(calls()).toBe(2);
  });

  it('is refused with a reason to retry when it keeps closing under it', async () => {
    const { send } = failing(...Array.from({ length: 1_000 }, abortedByClose));
    await expect(acrossRuns(client, running, send, patience)).rejects.toThrow(
      `campaign "launch" is being continued by engine ${ENGINE}: retry in a few seconds`,
    );
  });

  it('throws any other error as it came, at once', async () => {
    const refused = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ type: 'ReviewInvalid', message: 'bad batch' }),
    );
    const { send, calls } = failing(refused);
    await expect(acrossRuns(client, running, send, patience)).rejects.toBe(refused);
    expect(calls()).toBe(1);
  });
});

it('reads the continuing engine back from the reason an older run was ended with', () => {
  expect(continuingEngineOf(continuedReason(1))).toBe(ENGINE);
  expect(continuingEngineOf('upgraded by hand')).toBeNull();
});

/**
 * Before `run` shows progress it asks one worker of the campaign's task queue whether it can do
 * the work: read the stored plan and write the output folder (workflows/runtime/check-access.ts). The
 * answer is a verdict the CLI can print as one line: the worker that answered, or what is wrong
 * (`plan_unreadable`, `output_unwritable`, `disk_full`), or `no_worker` when nothing polls the
 * queue. It takes a few milliseconds when a worker is there, and `waitMs` (15 s) when none is.
 */
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import type { PlanRef } from '../contract/campaign.ts';
import {
  type CheckAccessVerdict,
  checkAccessWorkflow,
  DEFAULT_ACCESS_WAIT_MS,
} from '../workflows/runtime/check-access.ts';

export type AccessReport = CheckAccessVerdict;

export interface CheckWorkerAccessOptions {
  /** Names the check's workflow (`mediaflow-check-<campaign>-<random>`); default the output folder's name. */
  readonly campaign?: string;
  /** How long to wait for a worker to pick the check up (default 15 s). */
  readonly waitMs?: number;
}

/** Room for the workflow task and the activity's own run, on top of the wait for a worker. */
const SLACK_MS = 5_000;

export async function checkWorkerAccess(
  client: Client,
  taskQueue: string,
  plan: PlanRef,
  outputDir: string,
  options: CheckWorkerAccessOptions = {},
): Promise<AccessReport> {
  const waitMs = options.waitMs ?? DEFAULT_ACCESS_WAIT_MS;
  const campaign = options.campaign ?? basename(outputDir);
  const noWorker: AccessReport = {
    ok: false,
    outcome: 'no_worker',
    message:
      `no worker polls the task queue ${taskQueue} (nothing picked up the access check within ` +
      `${Math.round(waitMs / 1000)} s): start one with \`mediaflow worker\``,
  };
  try {
    return await client.workflow
      .execute(checkAccessWorkflow, {
        workflowId: `mediaflow-check-${campaign}-${randomBytes(4).toString('hex')}`,
        taskQueue,
        args: [{ plan, outputDir, waitMs }],
        // A queue nobody polls never runs the workflow at all: the server ends it at this bound.
        workflowExecutionTimeout: waitMs + SLACK_MS,
        retry: { maximumAttempts: 1 },
      })
      .then((verdict) => (verdict.ok || verdict.outcome !== 'no_worker' ? verdict : noWorker));
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof TimeoutFailure) return noWorker;
    throw error;
  }
}

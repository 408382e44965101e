/**
 * One short activity on the campaign's task queue: can a worker read the plan and write the
 * output folder? (activities/check-access.ts). Started by worker/check-access.ts before `run`
 * shows progress. Its bounds name "no worker" instead of waiting for one: the activity must be
 * picked up within `waitMs` (schedule-to-start) and is tried once; the caller also bounds the
 * whole workflow, for a queue no worker polls at all (then not even this code runs).
 */
import { ActivityFailure, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import type { AccessResult, CheckAccessInput } from '../../activities/check-access.ts';
import type { createActivities } from '../../activities/index.ts';

type Activities = ReturnType<typeof createActivities>;

export interface CheckAccessWorkflowInput extends CheckAccessInput {
  /** How long the activity may wait for a worker to pick it up (default 15 s). */
  readonly waitMs?: number;
}

export type CheckAccessVerdict =
  | AccessResult
  | { readonly ok: false; readonly outcome: 'no_worker'; readonly message: string };

export const DEFAULT_ACCESS_WAIT_MS = 15_000;

export async function checkAccessWorkflow(input: CheckAccessWorkflowInput): Promise<CheckAccessVerdict> {
  const waitMs = input.waitMs ?? DEFAULT_ACCESS_WAIT_MS;
  const { checkAccess } = proxyActivities<Activities>({
    scheduleToStartTimeout: waitMs,
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 1 },
  });
  try {
    return await checkAccess({ plan: input.plan, outputDir: input.outputDir });
  } catch (error) {
    const timeout = error instanceof ActivityFailure ? error.cause : null;
    if (timeout instanceof TimeoutFailure && timeout.timeoutType === 'SCHEDULE_TO_START') {
      return {
        ok: false,
        outcome: 'no_worker',
        message: `no worker picked up the access check within ${Math.round(waitMs / 1000)} s`,
      };
    }
    throw error;
  }
}

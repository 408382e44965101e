/**
 * Whether a worker serves a running campaign, from what the server says without asking one.
 *
 * DescribeTaskQueue lists a poller for minutes after its worker left (the server forgets pollers
 * five minutes after their last poll), and an idle worker's long poll is renewed only about once a
 * minute, so "polled lately" cannot tell a worker gone a minute ago from an idle one (`status`
 * would say Running for minutes after a Ctrl-C). A workflow task can: the campaign's
 * pulse (workflows/runtime/pulse.ts) schedules one every 10 s, which a worker starts at once; one left
 * unstarted for TASK_UNSTARTED_MS says nobody polls. So a campaign shows paused at most about
 * PULSE (10 s) + a sticky queue's time-out (10 s) + TASK_UNSTARTED_MS (30 s) = 50 s after its worker
 * left (docs/engine.md, "Progress without queries"); a campaign started before the pulse, within
 * POLLER_GONE_MS. Times are the server's against ours: a clock minutes off would only make this
 * say "gone" too early or too late.
 */

import type { Client, WorkflowHandle } from '@temporalio/client';
import { msOf } from './timestamp.ts';

/** An idle worker's long poll is renewed about every minute: a poller not seen for two is gone. */
export const POLLER_GONE_MS = 120_000;

/** A workflow task waits no longer than this for a live worker, even on a loaded machine. */
export const TASK_UNSTARTED_MS = 30_000;

export interface PresenceFacts {
  /** When each poller of the campaign's task queue last polled, ms since the epoch. */
  readonly pollersSeenAt: readonly number[];
  /** When the workflow task that waits for a worker (scheduled, not started) was first scheduled. */
  readonly taskScheduledAt: number | null;
  readonly now: number;
}

export function workerServes({ pollersSeenAt, taskScheduledAt, now }: PresenceFacts): boolean {
  if (taskScheduledAt !== null && now - taskScheduledAt > TASK_UNSTARTED_MS) return false;
  return pollersSeenAt.some((at) => now - at < POLLER_GONE_MS);
}

/**
 * Whether a worker serves the campaign, as the server tells: one has polled its task queue
 * for workflow tasks lately, and no workflow task of the run has waited long for one.
 */
export async function workerServing(
  client: Client,
  taskQueue: string,
  pendingTask: PendingTask | null | undefined,
): Promise<boolean> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW (the enum lives in @temporalio/proto, not a dependency)
  });
  // Scheduled, not started (PENDING_WORKFLOW_TASK_STATE_SCHEDULED): this attempt's time, so a
  // task a live worker keeps failing (and starting again) never reads as waiting for one.
  const waiting = pendingTask?.state === 1 ? pendingTask.scheduledTime : null;
  return workerServes({
    pollersSeenAt: (pollers ?? []).map((poller) => msOf(poller.lastAccessTime) ?? 0),
    taskScheduledAt: msOf(waiting),
    now: Date.now(),
  });
}

type PendingTask = NonNullable<Awaited<ReturnType<WorkflowHandle['describe']>>['raw']['pendingWorkflowTask']>;

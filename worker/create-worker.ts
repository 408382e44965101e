/**
 * The mediaflow worker: the campaign workflow and its activities on one task queue. Any number
 * of these may run, on any machines that share the output folder; the workflow paces creates, so
 * adding workers adds capacity without multiplying the request rate.
 */
import { type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { ServiceClient } from '../api/client/index.ts';
import { workflowBundle } from './workflow-bundle.ts';

export const TASK_QUEUE = 'mediaflow';

/** Activities at once per worker: mostly waiting on predictions, so far above the core count. */
export const DEFAULT_MAX_ACTIVITIES = 1_000;

/**
 * Connections the worker's service client needs: every prediction being waited on holds one (its
 * event stream), so the pool must never be what limits the predictions in flight.
 */
export function serviceConnectionsFor(maxActivities = DEFAULT_MAX_ACTIVITIES): number {
  return maxActivities + 16;
}

export interface MediaflowWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly client: ServiceClient;
  readonly taskQueue?: string;
  /** A prebuilt workflow bundle; by default the workflows are bundled once per process. */
  readonly workflowBundle?: WorkflowBundleOption;
  /** Default DEFAULT_MAX_ACTIVITIES; give the client serviceConnectionsFor(this) connections. */
  readonly maxConcurrentActivities?: number;
}

export async function createMediaflowWorker(options: MediaflowWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    activities: createActivities({ client: options.client }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? DEFAULT_MAX_ACTIVITIES,
  });
}

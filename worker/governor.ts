/** The worker that runs rate governors (workflows/governor/); their client side is control/governor.ts. */
import { type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { GOVERNOR_TASK_QUEUE } from '../contract/task-queues.ts';
import { STICKY_TASK_TIMEOUT } from './create-worker.ts';
import { workerTracing } from './tracing/worker-options.ts';
import { workflowBundle } from './workflow-bundle.ts';
import type { WorkerClass } from './workflow-thread.ts';

export interface GovernorWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  /** The same bundle as the campaign worker's (worker/workflow-bundle.ts) by default. */
  readonly workflowBundle?: WorkflowBundleOption;
  /** The campaign worker's, to run governors in its workflow thread (worker/workflow-thread.ts). */
  readonly workerClass?: WorkerClass;
}

/** A workflow-only worker on the governors' queue: small, since a governor holds a few lines of state. */
export async function createGovernorWorker(options: GovernorWorkerOptions): Promise<Worker> {
  return (options.workerClass ?? Worker).create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: GOVERNOR_TASK_QUEUE,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    maxCachedWorkflows: 100,
    stickyQueueScheduleToStartTimeout: STICKY_TASK_TIMEOUT,
    // A tracing process's bundle has the workflow interceptors: their spans leave through its sink.
    ...(await workerTracing())?.workerOptions(false),
  });
}

/**
 * The mediaflow worker: the campaign workflow and its activities on one task queue. Any number
 * of these may run, on any machines that share the output folder; the workflow paces creates, so
 * adding workers adds capacity without multiplying the request rate.
 */
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  type NativeConnection,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { ServiceClient } from '../api/client/index.ts';

export const TASK_QUEUE = 'mediaflow';

const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface MediaflowWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly client: ServiceClient;
  readonly taskQueue?: string;
  /** A prebuilt workflow bundle (tests share one); by default the workflows are bundled here. */
  readonly workflowBundle?: WorkflowBundleWithSourceMap;
  /** Activities at once: mostly waiting on predictions, so this is far above the core count. */
  readonly maxConcurrentActivities?: number;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles the workflow code once per process (webpack takes seconds). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return bundle;
}

export async function createMediaflowWorker(options: MediaflowWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    activities: createActivities({ client: options.client }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 1_000,
  });
}

const quietBundlerLogger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
  log: () => {},
};

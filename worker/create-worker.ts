/**
 * The mediaflow worker: the campaign workflow and its activities on one task queue. Any number
 * of these may run, on any machines that share the output location (a bucket, or a shared
 * folder); the workflow paces creates, so adding workers never multiplies the request rate. A
 * campaign's activities run mostly beside its workflow (eager execution, below): other workers
 * take them over when that one dies or its slots are full, and run other campaigns.
 */
import { type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { deriveDeps } from '../activities/derive/deps.ts';
import { downloadFile } from '../activities/download.ts';
import { type ActivityDeps, createActivities } from '../activities/index.ts';
import { notifyActivities } from '../activities/notify/index.ts';
import type { ServiceClient } from '../api/client/index.ts';
import { TASK_QUEUE } from '../contract/task-queues.ts';
import { Manifests } from '../records/manifests.ts';
import { PlanCache } from '../records/plan-store.ts';
import { openStore } from '../store/index.ts';
import { workerTracing } from './tracing/worker-options.ts';
import { workflowBundle } from './workflow-bundle.ts';
import type { WorkerClass } from './workflow-thread.ts';

/**
 * Node flags a long-running worker process starts with (Dockerfile, docker-compose.yml, the bench
 * stack). Under a high allocation rate V8 grows its heap far past what is live, so the old space
 * is capped well above what the largest plan holds live, and the young generation's semi-spaces
 * are halved: each lowers the worker's peak memory for a run barely slower (docs/benchmarks.md,
 * the memory table and "Memory").
 */
export const WORKER_NODE_FLAGS = ['--max-old-space-size=256', '--max-semi-space-size=8'] as const;

/**
 * The worker's environment beside them (the Dockerfile's ENV, the bench stack): glibc gives each
 * thread that allocates an arena of its own (the Rust core's, V8's, libuv's); two arenas lower the
 * worker's peak memory at no cost in speed (docs/benchmarks.md).
 */
export const WORKER_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/** Activities at once per worker: mostly waiting on predictions, so far above the core count. */
export const DEFAULT_MAX_ACTIVITIES = 1_000;

/**
 * Connections the worker's service client needs: every prediction being waited on holds one (its
 * event stream), so the pool must never be what limits the predictions in flight.
 */
export function serviceConnectionsFor(maxActivities = DEFAULT_MAX_ACTIVITIES): number {
  return maxActivities + 16;
}

/** The activities' dependencies as a worker runs them; tests override some. */
export function activityDeps(
  client: ServiceClient,
  overrides: Partial<Omit<ActivityDeps, 'client'>> = {},
): ActivityDeps {
  const storeOf = overrides.storeOf ?? openStore;
  return {
    client,
    storeOf,
    plans: overrides.plans ?? new PlanCache(storeOf),
    manifests: overrides.manifests ?? new Manifests(storeOf),
    download: overrides.download ?? downloadFile,
    derive: overrides.derive ?? deriveDeps(),
  };
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
  /**
   * How a shutdown drains (worker/worker-process.ts shutdownTimes); default the SDK's: running
   * activities are cancelled at once (ours finish anyway) and waited for without a limit.
   */
  readonly shutdown?: { readonly shutdownGraceTime: number; readonly shutdownForceTime: number };
  /** `sharedWorkflowThread()` to share its workflow thread with the governors' worker; create this one first. */
  readonly workerClass?: WorkerClass;
}

/**
 * A campaign's workflow task schedules the finishes of a whole batch at once: with eager execution
 * (servers that enable system.enableActivityEagerExecution: ours, worker/dev-server.ts and
 * docker-compose.yml) the worker takes up to this many of them in the task's reply, so they start
 * without waiting in the task queue for a poller, a wait docs/benchmarks.md measures.
 */
const EAGER_ACTIVITIES_PER_TASK = 50;

/**
 * How long a workflow task waits on its worker's sticky queue before any worker may take it (the
 * SDK's default is 10 s). A live worker starts it within milliseconds (the `cluster` drill,
 * docs/benchmarks.md), so this is how long a campaign stands still after the worker holding it
 * dies; a worker that is merely slow past it costs one replay elsewhere, never a wrong decision.
 */
export const STICKY_TASK_TIMEOUT = '3 seconds';

/**
 * The SDK sends an activity's beats at most every 0.8 × its heartbeat timeout; this sends them at
 * least this often, so a beat reaches the server 3 s before the 5 s timeout (workflows/runtime/activities.ts)
 * runs out rather than 1 s. Only activities that last past their first beat send any.
 */
const HEARTBEAT_SENT_EVERY = '2 seconds';

export async function createMediaflowWorker(options: MediaflowWorkerOptions): Promise<Worker> {
  // With an OTLP endpoint set: spans of its activities, their jobs and stores (worker/tracing/).
  const tracing = await workerTracing();
  const deps = activityDeps(options.client, tracing ? { storeOf: tracing.storesOf(openStore) } : {});
  const campaignActivities = createActivities(deps);
  return (options.workerClass ?? Worker).create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    // Notices read their secrets from this worker's environment, by the names the workflow passes.
    activities: {
      ...(tracing ? tracing.withJobSpans(campaignActivities, deps.plans) : campaignActivities),
      ...notifyActivities({ env: process.env }),
    },
    ...tracing?.workerOptions(true),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? DEFAULT_MAX_ACTIVITIES,
    maxEagerActivityReservationsPerWorkflowTask: EAGER_ACTIVITIES_PER_TASK,
    stickyQueueScheduleToStartTimeout: STICKY_TASK_TIMEOUT,
    maxHeartbeatThrottleInterval: HEARTBEAT_SENT_EVERY,
    ...options.shutdown,
  });
}

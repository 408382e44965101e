/**
 * A worker inside the CLI process, for the embedded default: there is no other worker, so `run`
 * and `cancel` carry one while they wait for the campaign. With a configured Temporal the
 * workers are separate processes (`mediaflow worker`) and this is opt-in (`run --worker`).
 */
import { join, relative } from 'node:path';
import { DefaultLogger, type LogEntry, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createServiceClient } from '../api/client/index.ts';
import { engineQueue } from '../contract/engine.ts';
import { GOVERNOR_TASK_QUEUE, TASK_QUEUE } from '../contract/task-queues.ts';
import { loadTemporalTarget } from '../worker/connection.ts';
import { createMediaflowWorker, serviceConnectionsFor } from '../worker/create-worker.ts';
import { createGovernorWorker } from '../worker/governor.ts';
import { workflowBundle } from '../worker/workflow-bundle.ts';
import { sharedWorkflowThread } from '../worker/workflow-thread.ts';
import type { Environment } from './environment.ts';
import { stateDirOf } from './state-home.ts';
import { workerLog } from './worker-log.ts';

export interface LocalWorker {
  /**
   * Stops polling, lets in-flight tasks finish or hand back, and closes connections. Given
   * `graceMs`, waits no longer than that: false then says activities were still running (another
   * campaign's, on a shared task queue) and were left as abandon() leaves them.
   */
  stop(graceMs?: number): Promise<boolean>;
  /**
   * Stops polling and leaves in-flight activities where they are: the process is about to exit,
   * and like after a crash they time out on their heartbeat and run again on the next worker.
   */
  abandon(): void;
}

export interface LocalWorkerOptions {
  /**
   * Where the worker's warnings go, one line each (`run`'s log beside its outputs). Without it,
   * `<state home>/logs/worker.log`: only mediaflow's own lines reach the terminal, and the SDK's
   * and its native core's (a workflow task failing, a lost gRPC stream when the stack stops) are
   * a file's business.
   */
  readonly logFile?: string;
  /**
   * Called once, at the first warning written to logFile (`run` says where it is, in its frame);
   * by default one line on stderr says so.
   */
  readonly onFirstWarning?: () => void;
  /** Called once, when a warning could not be written to logFile (its error code: ENOSPC…). */
  readonly onLogLost?: (code: string) => void;
}

export { campaignTaskQueue } from './task-queue.ts';

export async function startLocalWorker(
  env: Environment,
  taskQueue = engineQueue(TASK_QUEUE),
  options: LocalWorkerOptions = {},
): Promise<LocalWorker> {
  const logFile = options.logFile ?? join(stateDirOf(), 'logs', 'worker.log');
  const log = workerLog(logFile, {
    onFirst:
      options.onFirstWarning ??
      (() => process.stderr.write(`worker warnings are written to ${relative('.', logFile)}\n`)),
    onLost: options.onLogLost,
    skip: isGovernorActivityNotice,
  });
  Runtime.install({
    // The worker speaks up only about problems, in its file.
    logger: new DefaultLogger('WARN', (entry) => log.write(entry)),
    // The native core's lines too: by default it prints them to the console itself.
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
    // SIGINT is `run`'s to handle (detach), not a cue for the runtime to drain every activity first.
    shutdownSignals: [],
  });
  const target = loadTemporalTarget(env.embedded ? { localAddress: env.temporalAddress } : {});
  const connection = await NativeConnection.connect(target.connectionOptions);
  const service = createServiceClient({ ...env.service, connections: serviceConnectionsFor() });
  let workers: Worker[];
  try {
    // Bundled once per version of the code, not once per command (worker/bundle-cache.ts).
    const bundle = await workflowBundle(join(stateDirOf(), 'bundles'));
    // The rate governors' queue too: they live as long as any campaign on their key has a worker.
    // Both run their workflows in one thread (worker/workflow-thread.ts), the campaigns' first.
    const workerClass = sharedWorkflowThread();
    workers = [
      await createMediaflowWorker({
        connection,
        namespace: env.namespace,
        client: service,
        taskQueue,
        workflowBundle: bundle,
        workerClass,
      }),
      await createGovernorWorker({
        connection,
        namespace: env.namespace,
        workflowBundle: bundle,
        workerClass,
      }),
    ];
  } catch (error) {
    await connection.close();
    throw error;
  }
  const running = Promise.all(workers.map((worker) => worker.run()));
  const shutdown = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  return {
    async stop(graceMs) {
      shutdown();
      // The service client's close waits for its open requests (a prediction's event stream).
      const stopping = (async () => {
        await running.catch(() => {});
        await connection.close();
        await service.close();
        log.close();
        return true;
      })();
      if (graceMs === undefined) return stopping;
      const timer = new Promise<false>((resolve) => setTimeout(resolve, graceMs, false).unref());
      return Promise.race([stopping, timer]);
    },
    abandon() {
      shutdown();
      running.catch(() => {});
    },
  };
}

/**
 * The governors' worker registers no activity on purpose (a governor runs none), and the SDK
 * warns about it at every start: not news for the person watching a campaign.
 */
function isGovernorActivityNotice(entry: LogEntry): boolean {
  return (
    entry.meta?.taskQueue === GOVERNOR_TASK_QUEUE && entry.message.startsWith('No activities registered')
  );
}

/**
 * A worker inside the CLI process, for the embedded default: there is no other worker, so `run`
 * and `cancel` carry one while they wait for the campaign. With a configured Temporal the
 * workers are separate processes (`mediaflow worker`) and this is opt-in (`run --worker`).
 */
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createServiceClient } from '../api/client/index.ts';
import { loadTemporalTarget } from '../worker/connection.ts';
import { createMediaflowWorker, serviceConnectionsFor, TASK_QUEUE } from '../worker/create-worker.ts';
import type { Environment } from './environment.ts';

export interface LocalWorker {
  /** Stops polling, lets in-flight tasks finish or hand back, and closes connections. */
  stop(): Promise<void>;
}

export async function startLocalWorker(env: Environment, taskQueue = TASK_QUEUE): Promise<LocalWorker> {
  // The progress display is the user's view; the worker speaks up only about problems.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const target = loadTemporalTarget(env.embedded ? { localAddress: env.temporalAddress } : {});
  const connection = await NativeConnection.connect(target.connectionOptions);
  const service = createServiceClient({ ...env.service, connections: serviceConnectionsFor() });
  let worker: Worker;
  try {
    worker = await createMediaflowWorker({
      connection,
      namespace: env.namespace,
      client: service,
      taskQueue,
    });
  } catch (error) {
    await connection.close();
    throw error;
  }
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => {});
      await connection.close();
      await service.close();
    },
  };
}

/**
 * `mediaflow worker`: a long-running worker process. Run as many as you like, on as many machines
 * as share the output folder; they split the work of every campaign on the task queue.
 */

import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { sayHowOutputsAreSigned } from '../../activities/provenance/credentials/notice.ts';
import { serviceClientFromEnv } from '../../api/client/index.ts';
import { engineQueue } from '../../contract/engine.ts';
import { GOVERNOR_TASK_QUEUE, TASK_QUEUE } from '../../contract/task-queues.ts';
import { endTracing } from '../../telemetry/command-span.ts';
import { connectWorker, loadTemporalTarget, temporalConfigured } from '../../worker/connection.ts';
import {
  createMediaflowWorker,
  DEFAULT_MAX_ACTIVITIES,
  serviceConnectionsFor,
} from '../../worker/create-worker.ts';
import { createGovernorWorker } from '../../worker/governor.ts';
import {
  DEFAULT_SHUTDOWN_GRACE_S,
  installWorkerRuntime,
  runUntilDrained,
  shutdownTimes,
  startHealthEndpoint,
} from '../../worker/worker-process.ts';
import { sharedWorkflowThread } from '../../worker/workflow-thread.ts';
import { UserError } from '../errors.ts';
import { command } from '../invocation.ts';
import { taskQueueOption, wholeNumber } from '../options.ts';

interface WorkerCommandOptions {
  taskQueue: string;
  maxActivities: number;
  shutdownGrace: number;
  healthPort?: string;
  metricsAddress?: string;
}

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run a worker: executes campaigns started by `mediaflow run` (Ctrl-C stops it gracefully).')
    .addOption(taskQueueOption('Temporal task queue to poll', TASK_QUEUE))
    .option(
      '--max-activities <n>',
      'activities at once (mostly waiting on predictions)',
      wholeNumber,
      DEFAULT_MAX_ACTIVITIES,
    )
    .option(
      '--shutdown-grace <seconds>',
      'on SIGTERM, how long running activities may finish before they are handed over',
      wholeNumber,
      DEFAULT_SHUTDOWN_GRACE_S,
    )
    .option('--health-port <port>', 'serve GET /health (200 while polling, 503 once draining) on this port')
    .option(
      '--metrics-address <host:port>',
      "serve Temporal's SDK metrics for Prometheus at /metrics (off by default)",
    )
    .addHelpText(
      'after',
      '\nReads TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE / TEMPORAL_API_KEY (or a Temporal profile) and\n' +
        'MEDIAFLOW_API_URL / MEDIAFLOW_API_KEY from the environment.',
    )
    .action(async (options: WorkerCommandOptions) => {
      // On the embedded default the stack is `run`'s: its worker rides along with it.
      if (!temporalConfigured()) {
        throw new UserError(
          'a worker needs a Temporal to poll: set TEMPORAL_ADDRESS (or a Temporal profile), MEDIAFLOW_API_URL ' +
            'and MEDIAFLOW_API_KEY',
          `without them, ${command('run', '<spec>')} carries its own worker on the embedded default`,
        );
      }
      if (!process.env.MEDIAFLOW_API_URL || !process.env.MEDIAFLOW_API_KEY) {
        throw new UserError(
          'a worker needs the service it creates predictions on: set MEDIAFLOW_API_URL (ending in /v1) ' +
            'and MEDIAFLOW_API_KEY',
          `for a local one, ${command('emulator')} prints both`,
        );
      }
      installWorkerRuntime({ metricsAddress: options.metricsAddress });
      const service = serviceClientFromEnv(process.env, {
        connections: serviceConnectionsFor(options.maxActivities),
      });
      const { connection, namespace, address } = await connectWorker().catch((error: unknown) => {
        throw new UserError(
          `could not reach Temporal at ${loadTemporalTarget().address}: ${String(error)}`,
          'check TEMPORAL_ADDRESS or your Temporal profile',
        );
      });
      const workerClass = sharedWorkflowThread();
      const worker = await createMediaflowWorker({
        connection,
        workerClass,
        namespace,
        client: service,
        taskQueue: engineQueue(options.taskQueue),
        maxConcurrentActivities: options.maxActivities,
        shutdown: shutdownTimes(options.shutdownGrace),
      });
      // Every worker also runs rate governors (workflows/governor/), in the campaigns' workflow thread.
      const governors = await createGovernorWorker({ connection, namespace, workerClass });
      console.log(
        `mediaflow worker polling ${engineQueue(options.taskQueue)} and ${GOVERNOR_TASK_QUEUE} on ${address} (namespace ${namespace})`,
      );
      const health =
        options.healthPort === undefined
          ? undefined
          : await startHealthEndpoint([worker, governors], Number(options.healthPort));
      if (health) console.log(`health at http://${hostPort(health.server.address())}/health`);
      sayHowOutputsAreSigned();
      try {
        // Both return after SIGINT/SIGTERM, once running activities finished or were handed over.
        await runUntilDrained([worker, governors]);
      } finally {
        await health?.close();
        await connection.close();
      }
      // Drained. What still runs in this process belongs to activities already finished, handed
      // over or failed (a batch item's download, a wait on a prediction, a stalled body): nothing
      // of it is needed now (outputs land under temporary names, as after a crash), and waiting
      // for it held a drained worker for up to a minute past its grace period, until its
      // supervisor SIGKILLed it (found by the cluster drill's rolling restart).
      await endTracing(0);
      process.exit(0);
    });
}

function hostPort(address: string | AddressInfo | null): string {
  return typeof address === 'object' && address ? `${address.address}:${address.port}` : String(address);
}

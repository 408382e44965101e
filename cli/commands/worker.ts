/**
 * `mediaflow worker`: a long-running worker process. Run as many as you like, on as many machines
 * as share the output folder; they split the work of every campaign on the task queue.
 */

import type { Command } from 'commander';
import { serviceClientFromEnv } from '../../api/client/index.ts';
import { engineQueue } from '../../contract/engine.ts';
import { connectWorker, loadTemporalTarget, temporalConfigured } from '../../worker/connection.ts';
import {
  createMediaflowWorker,
  DEFAULT_MAX_ACTIVITIES,
  serviceConnectionsFor,
  TASK_QUEUE,
} from '../../worker/create-worker.ts';
import { createGovernorWorker, GOVERNOR_TASK_QUEUE } from '../../worker/governor.ts';
import { UserError } from '../errors.ts';
import { command } from '../invocation.ts';
import { wholeNumber } from '../options.ts';

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run a worker: executes campaigns started by `mediaflow run` (Ctrl-C stops it gracefully).')
    .option('--task-queue <name>', 'Temporal task queue to poll', TASK_QUEUE)
    .option(
      '--max-activities <n>',
      'activities at once (mostly waiting on predictions)',
      wholeNumber,
      DEFAULT_MAX_ACTIVITIES,
    )
    .addHelpText(
      'after',
      '\nReads TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE / TEMPORAL_API_KEY (or a Temporal profile) and\n' +
        'MEDIAFLOW_API_URL / MEDIAFLOW_API_KEY from the environment.',
    )
    .action(async (options: { taskQueue: string; maxActivities: number }) => {
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
      const service = serviceClientFromEnv(process.env, {
        connections: serviceConnectionsFor(options.maxActivities),
      });
      const { connection, namespace, address } = await connectWorker().catch((error: unknown) => {
        throw new UserError(
          `could not reach Temporal at ${loadTemporalTarget().address}: ${String(error)}`,
          'check TEMPORAL_ADDRESS or your Temporal profile',
        );
      });
      const worker = await createMediaflowWorker({
        connection,
        namespace,
        client: service,
        taskQueue: engineQueue(options.taskQueue),
        maxConcurrentActivities: options.maxActivities,
      });
      // Every worker also runs rate governors (workflows/governor/): one per API key in use.
      const governors = await createGovernorWorker({ connection, namespace });
      console.log(
        `mediaflow worker polling ${engineQueue(options.taskQueue)} and ${GOVERNOR_TASK_QUEUE} on ${address} (namespace ${namespace})`,
      );
      try {
        // Both return after SIGINT/SIGTERM, once in-flight tasks are handed back.
        await Promise.all([worker.run(), governors.run()]);
      } finally {
        await connection.close();
        await service.close();
      }
    });
}

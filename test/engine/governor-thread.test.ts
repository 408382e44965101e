/**
 * Governors run on the worker's main thread (worker/governor.ts), where a workflow task that never
 * yields would hold up every activity of the process: the worker must still cut such a task off.
 * A governor that loops forever stands for that bug here; its own dev server keeps it away from
 * the suite's governors.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startDevServer } from '../../worker/dev-server.ts';
import { createGovernorWorker, GOVERNOR_TASK_QUEUE } from '../../worker/governor.ts';
import { temporalClient, workerConnection } from '../helpers/temporal.ts';

const LOOPING_GOVERNOR = fileURLToPath(new URL('../fixtures/looping-governor.ts', import.meta.url));

describe('governors on the main thread', () => {
  it('fail a workflow task that never yields instead of holding the thread', async () => {
    const server = await startDevServer();
    onTestFinished(() => server.stop());
    const { code } = await bundleWorkflowCode({
      workflowsPath: LOOPING_GOVERNOR,
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    });
    const client = await temporalClient(server.address);
    const worker = await createGovernorWorker({
      connection: await workerConnection(server.address),
      namespace: 'default',
      workflowBundle: { code },
    });

    const failure = await worker.runUntil(async () => {
      const handle = await client.workflow.start('governorWorkflow', {
        workflowId: 'looping-governor',
        taskQueue: GOVERNOR_TASK_QUEUE,
      });
      try {
        for (;;) {
          const events = (await handle.fetchHistory()).events ?? [];
          const failed = events.find((e) => e.workflowTaskFailedEventAttributes);
          if (failed) return failed.workflowTaskFailedEventAttributes?.failure?.message ?? '';
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      } finally {
        await handle.terminate('test over');
      }
    });
    expect(failure).toMatch(/timed out/i);
  }, 60_000);
});

/**
 * Access to the suite's Temporal dev server (started once in test/global-setup.ts).
 * Every test gets its own task queue, so workers of different tests never steal each other's work.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type WorkflowBundlePath } from '@temporalio/worker';
import { inject, onTestFinished } from 'vitest';

export function temporalAddress(): string {
  return inject('temporalAddress');
}

/** A task queue name no other test uses. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** A Client on the suite's server (or `address`), closed automatically when the test ends. */
export async function temporalClient(address = temporalAddress()): Promise<Client> {
  const connection = await Connection.connect({ address });
  onTestFinished(() => connection.close());
  return new Client({ connection });
}

/** A worker connection on the suite's server (or `address`), closed when the test ends. */
export async function workerConnection(address = temporalAddress()): Promise<NativeConnection> {
  const connection = await NativeConnection.connect({ address });
  onTestFinished(() => connection.close());
  return connection;
}

/**
 * The workflow code, bundled once for the whole run (test/global-setup.ts): give it to every worker
 * a test creates, or the worker bundles again in this file's process (about 5 s). It is the code
 * as it was when the run started: in watch mode, restart vitest after changing workflows/.
 */
export function suiteWorkflowBundle(): WorkflowBundlePath {
  return { codePath: inject('workflowBundle') };
}

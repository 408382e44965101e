/**
 * The client and worker side of the rate governor (workflows/governor/): which governor a key
 * belongs to, how a starting campaign joins it, and the worker that runs governors.
 */
import { createHmac } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { engineQueue } from '../contract/engine.ts';
import type { Claim } from '../workflows/governor/messages.ts';
import { governorWorkflowId, joinSignal } from '../workflows/governor/messages.ts';
import { workflowBundle } from './workflow-bundle.ts';

/**
 * Governors have a queue of their own, polled by every mediaflow worker process (cli/local-worker.ts,
 * `mediaflow worker`): on the embedded default each campaign has its own queue, and a governor
 * on one campaign's queue would stop with that campaign's `run`.
 */
export const GOVERNOR_TASK_QUEUE = engineQueue('mediaflow-governor');

/** Domain separation: the fingerprint is nobody else's hash of the key (see keyFingerprint). */
const FINGERPRINT_SALT = 'mediaflow rate governor v1';

/**
 * Names an API key (at one service) in workflow ids, inputs and logs without revealing it: an
 * HMAC-SHA256 keyed by a fixed salt over the service's origin and the key, 128 bits kept. Safe
 * because API keys are long random secrets: recovering one from its fingerprint is a brute force
 * over the key space, not a dictionary. The salt keeps the fingerprint from matching a plain
 * sha256 of the key that some other system may log; a fixed salt (not a per-machine one) is
 * what lets workers and clients on different machines agree on one governor. The origin makes
 * the same key string at two services two governors, as they are two rate limits.
 */
export function keyFingerprint(apiUrl: string, apiKey: string): string {
  return createHmac('sha256', FINGERPRINT_SALT)
    .update(`${new URL(apiUrl).origin}\n${apiKey}`)
    .digest('hex')
    .slice(0, 32);
}

/**
 * Puts a campaign that just started into its key's governor, starting the governor when none
 * runs (signal-with-start: one atomic call, so two campaigns starting at once meet in one).
 */
export async function joinGovernor(client: Client, key: string, claim: Claim): Promise<void> {
  await client.workflow.signalWithStart('governorWorkflow', {
    workflowId: governorWorkflowId(key),
    taskQueue: GOVERNOR_TASK_QUEUE,
    args: [{ key }],
    signal: joinSignal,
    signalArgs: [claim],
  });
}

export interface GovernorWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  /** The same bundle as the campaign worker's (worker/workflow-bundle.ts) by default. */
  readonly workflowBundle?: WorkflowBundleOption;
}

/** A workflow-only worker on the governors' queue: small, since a governor holds a few lines of state. */
export async function createGovernorWorker(options: GovernorWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: GOVERNOR_TASK_QUEUE,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    maxCachedWorkflows: 100,
  });
}

/**
 * A campaign outlives its runs: continue-as-new hands it to a fresh run, and a newer engine ends
 * an older engine's run to continue the campaign from its records (docs/engine.md, "Changing the
 * workflow safely"). A client's update names the workflow, not a run, so the server sends it to
 * the current run; one that reached a run as that run closed is sent again here, to the run that
 * continues the campaign, rather than lost or reported as an unexpected error.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ENGINE, engineOf } from '../contract/engine.ts';

/** Why an older run ends, as the Temporal UI and `temporal workflow describe` show it. */
export function continuedReason(engine: number): string {
  return `continued from its records by mediaflow engine ${ENGINE} (this run was engine ${engine}); nothing made is paid again`;
}

/** The engine a termination reason names as continuing the campaign, or null for another reason. */
export function continuingEngineOf(reason: string): number | null {
  const match = /^continued from its records by mediaflow engine (\d+) /.exec(reason);
  return match ? Number(match[1]) : null;
}

/** The campaign is between an older engine's run and the newer engine's: try again shortly. */
export class HandoverError extends Error {
  constructor(workflowId: string, engine: number) {
    const campaign = workflowId.replace(/^mediaflow-/, ''); // workflowIdOf's prefix
    super(`campaign "${campaign}" is being continued by engine ${engine}: retry in a few seconds`);
  }
}

/** How long a client waits for the run that continues a campaign, and how often it looks. */
export interface Patience {
  readonly ms: number;
  readonly everyMs: number;
}

/**
 * A newer engine ends the older run and starts its own at once, and the new run takes decisions
 * once it has read the records back: a few seconds, so a person at the CLI waits rather than
 * retries by hand.
 */
export const HANDOVER_PATIENCE: Patience = { ms: 20_000, everyMs: 250 };

/** The engine that ended this run to continue the campaign, or null when it ended otherwise. */
async function continuingEngine(client: Client, workflowId: string, runId: string): Promise<number | null> {
  const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
  });
  const reason = history?.events?.[0]?.workflowExecutionTerminatedEventAttributes?.reason;
  return reason ? continuingEngineOf(reason) : null;
}

/**
 * The campaign's current run. A run a newer engine ended to continue the campaign is not the
 * campaign's end: the run that continues it is waited for, and when it does not come within
 * `patience` the caller is told to retry (HandoverError).
 */
export async function currentRun(
  client: Client,
  handle: WorkflowHandle,
  patience: Patience = HANDOVER_PATIENCE,
): Promise<WorkflowExecutionDescription> {
  const deadline = Date.now() + patience.ms;
  for (;;) {
    const run = await handle.describe();
    if (run.status.name !== 'TERMINATED') return run;
    const engine = await continuingEngine(client, handle.workflowId, run.runId);
    if (engine === null) return run;
    if (Date.now() >= deadline) throw new HandoverError(handle.workflowId, engine);
    await sleep(patience.everyMs);
  }
}

/**
 * Why a call did not reach a run that could take it, when the next run can: `closed` when the run
 * closed under it (ended by a newer engine, or continued as new after the update was accepted; an
 * accepted update's next run either holds what it did or takes it again), `starting` when the run
 * had not yet set its handlers up (a fresh run rejects updates its first task does not handle).
 */
function interruption(error: unknown): 'closed' | 'starting' | null {
  if (error instanceof WorkflowNotFoundError) {
    return /aborted by closing workflow|already completed/.test(error.message) ? 'closed' : null;
  }
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure))
    return null;
  if (error.cause.type === 'AcceptedUpdateCompletedWorkflow') return 'closed';
  return error.cause.message.startsWith('No registered handler for update') ? 'starting' : null;
}

export interface Sent<T> {
  readonly value: T;
  /** The call was sent again after the run it first reached closed or was starting. */
  readonly resent: boolean;
}

/**
 * Sends with `send` until a run takes it. When the run it reached closed under it (or had just
 * started), the current run is looked up, a handover waited out, and it is sent again; past
 * `patience`, a closed run's call is refused with a reason to retry (HandoverError), and a
 * starting run's with its own error. `send` checks that the campaign still runs.
 */
export async function acrossRuns<T>(
  client: Client,
  handle: WorkflowHandle,
  send: () => Promise<T>,
  patience: Patience = HANDOVER_PATIENCE,
): Promise<Sent<T>> {
  const deadline = Date.now() + patience.ms;
  let resent = false;
  for (;;) {
    try {
      return { value: await send(), resent };
    } catch (error) {
      const why = interruption(error);
      if (why === null) throw error;
      if (Date.now() >= deadline) {
        if (why === 'starting') throw error;
        throw new HandoverError(handle.workflowId, engineOf((await handle.describe()).memo));
      }
      await currentRun(client, handle, { ...patience, ms: deadline - Date.now() });
      await sleep(patience.everyMs);
      resent = true;
    }
  }
}

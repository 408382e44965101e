/**
 * Which run of a campaign `run` meets: one under way on this engine (attached to), one on an
 * older engine (continued from its records by startOrAttach: contract/engine.ts), or none.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { ENGINE, engineOf } from '../contract/engine.ts';
import type { campaignHandle } from '../control/campaign.ts';

/** Whether the campaign runs on an older engine, whose run startOrAttach will continue. */
export async function runsOnOlderEngine(handle: ReturnType<typeof campaignHandle>): Promise<boolean> {
  const described = await handle.describe().catch(() => null);
  return described?.status.name === 'RUNNING' && engineOf(described.memo) < ENGINE;
}

/**
 * The task queue of the campaign's running workflow, or null when it is not running or runs on an
 * older engine (startOrAttach continues that one from its records: contract/engine.ts).
 */
export async function runningOn(handle: ReturnType<typeof campaignHandle>): Promise<string | null> {
  try {
    const { status, taskQueue, memo } = await handle.describe();
    return status.name === 'RUNNING' && engineOf(memo) >= ENGINE ? taskQueue : null;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

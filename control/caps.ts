/**
 * The client side of a key's spend caps (workflows/caps/, docs/caps.md): set or clear them, read
 * the ledger from its memo (no worker needed to read), and whether campaigns started now must
 * join it. Data from Temporal is parsed, never cast.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Caps } from '../contract/caps.ts';
import { CapsView } from '../contract/caps-view.ts';
import { GOVERNOR_TASK_QUEUE } from '../contract/task-queues.ts';
import { capsSetSignal, capsWorkflowId } from '../workflows/caps/messages.ts';

/** The caps workflow's type: a service of the campaigns on its key, never a campaign itself. */
export const CAPS_WORKFLOW = 'capsWorkflow';

export { CapsView };

/** Sets the key's caps (the whole set), starting its ledger when none runs. */
export async function setCaps(client: Client, key: string, caps: Caps): Promise<void> {
  await client.workflow.signalWithStart(CAPS_WORKFLOW, {
    workflowId: capsWorkflowId(key),
    taskQueue: GOVERNOR_TASK_QUEUE,
    args: [{ key }],
    signal: capsSetSignal,
    signalArgs: [caps],
  });
}

/**
 * The ledger as its memo last showed it; null when the key has no ledger running (no caps were
 * ever set) or it has not published yet.
 */
export async function readCaps(client: Client, key: string): Promise<CapsView | null> {
  try {
    const described = await client.workflow.getHandle(capsWorkflowId(key)).describe();
    if (described.status.name !== 'RUNNING') return null;
    const memo = described.memo?.caps;
    return memo === undefined ? null : CapsView.parse(memo);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

/** Whether a campaign started now on the key must join its caps ledger: one runs. */
export async function capsRunning(client: Client, key: string): Promise<boolean> {
  try {
    const described = await client.workflow.getHandle(capsWorkflowId(key)).describe();
    return described.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The same caps, field by field (the memo shows the set once the ledger took it). */
export function sameCaps(a: Caps, b: Caps): boolean {
  const models = (c: Caps) => JSON.stringify(Object.entries(c.models).sort(([x], [y]) => (x < y ? -1 : 1)));
  return a.daily === b.daily && a.monthly === b.monthly && models(a) === models(b);
}

/**
 * The client side of a key's spend caps (workflows/caps/, docs/caps.md): set or clear them, read
 * the ledger from its memo (no worker needed to read), and whether campaigns started now must
 * join it. Data from Temporal is parsed, never cast.
 */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { Caps } from '../contract/caps.ts';
import { capsSetSignal, capsWorkflowId } from '../contract/caps-messages.ts';
import { CapsView } from '../contract/caps-view.ts';
import { ENGINE } from '../contract/engine.ts';
import { GOVERNOR_TASK_QUEUE } from '../contract/task-queues.ts';
import { adoptedLedger } from '../workflows/caps/engine/adopt.ts';
import { viewOf } from '../workflows/caps/engine/view.ts';

/** The caps workflow's type: a service of the campaigns on its key, never a campaign itself. */
export const CAPS_WORKFLOW = 'capsWorkflow';

export { CapsView };

/** Sets the key's caps (the whole set), starting its ledger when none runs. */
export async function setCaps(client: Client, key: string, caps: Caps): Promise<void> {
  await adoptOlderLedger(client, key);
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
  await adoptOlderLedger(client, key);
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
  await adoptOlderLedger(client, key);
  try {
    const described = await client.workflow.getHandle(capsWorkflowId(key)).describe();
    return described.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * The first client of a newer engine to touch a key's caps continues the older engine's ledger
 * (workflows/caps/engine/adopt.ts): its own ledger starts with the caps and this period's spend, and the
 * older one ends with a reason that says so. Without this an upgrade would run every campaign
 * uncapped, its caps left behind on a ledger no worker serves. Engine 1 had no caps.
 */
async function adoptOlderLedger(client: Client, key: string): Promise<void> {
  const checked = adoptionChecked.get(client) ?? new Set<string>();
  adoptionChecked.set(client, checked);
  if (checked.has(key)) return;
  await adoptFromOlder(client, key);
  checked.add(key);
}

/**
 * Keys this client has looked for an older ledger of: an upgrade is adopted once, and `caps set`
 * reads the ledger every 250 ms while it waits for it to answer (each read would describe the
 * older ledger's id again).
 */
const adoptionChecked = new WeakMap<Client, Set<string>>();

async function adoptFromOlder(client: Client, key: string): Promise<void> {
  for (let engine = ENGINE - 1; engine >= 2; engine--) {
    const older = client.workflow.getHandle(capsWorkflowId(key, engine));
    let memo: unknown;
    try {
      const described = await older.describe();
      if (described.status.name !== 'RUNNING') continue;
      memo = described.memo?.caps;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) continue;
      throw error;
    }
    const view = CapsView.safeParse(memo);
    // A ledger that never published carries nothing: its caps were not taken yet.
    const carried = view.success ? adoptedLedger(view.data, Date.now()) : undefined;
    try {
      await client.workflow.start(CAPS_WORKFLOW, {
        workflowId: capsWorkflowId(key),
        taskQueue: GOVERNOR_TASK_QUEUE,
        args: [{ key, ...(carried && { carried }) }],
        // Shown at once, before its first task publishes it: `caps show` and preflight read it.
        ...(carried && { memo: { caps: viewOf(carried) } }),
      });
    } catch (error) {
      // Another client adopted it first, or this engine's ledger was started already.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    await endOlder(older, `caps carried over to mediaflow engine ${ENGINE}`);
    return;
  }
}

async function endOlder(older: WorkflowHandle, reason: string): Promise<void> {
  try {
    await older.terminate(reason);
  } catch (error) {
    // Ended by another client meanwhile.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** The same caps, field by field (the memo shows the set once the ledger took it). */
export function sameCaps(a: Caps, b: Caps): boolean {
  const models = (c: Caps) => JSON.stringify(Object.entries(c.models).sort(([x], [y]) => (x < y ? -1 : 1)));
  return a.daily === b.daily && a.monthly === b.monthly && models(a) === models(b);
}

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
import {
  type AccountUsage,
  capsAdoptSignal,
  capsSetSignal,
  capsUsageSignal,
  capsWorkflowId,
} from '../contract/caps-messages.ts';
import { CapsView } from '../contract/caps-view.ts';
import { ENGINE } from '../contract/engine.ts';
import { GOVERNOR_TASK_QUEUE } from '../contract/task-queues.ts';
import { adoptedLedger } from '../workflows/caps/engine/adopt.ts';
import { viewOf } from '../workflows/caps/engine/view.ts';
import type { CapsKey } from './governor.ts';

/** The caps workflow's type: a service of the campaigns on its key, never a campaign itself. */
export const CAPS_WORKFLOW = 'capsWorkflow';

export { CapsView };

/** Sets the key's caps (the whole set), starting its ledger when none runs. */
export async function setCaps(client: Client, key: CapsKey | string, caps: Caps): Promise<void> {
  const { ledger } = await adopted(client, key);
  await client.workflow.signalWithStart(CAPS_WORKFLOW, {
    workflowId: capsWorkflowId(ledger),
    taskQueue: GOVERNOR_TASK_QUEUE,
    args: [{ key: ledger }],
    signal: capsSetSignal,
    signalArgs: [caps],
  });
}

/** Hands the ledger the service's account usage (cli/caps-usage.ts read it): the key's real spend. */
export async function reportUsage(client: Client, key: CapsKey | string, usage: AccountUsage): Promise<void> {
  const { ledger } = await adopted(client, key);
  try {
    await client.workflow.getHandle(capsWorkflowId(ledger)).signal(capsUsageSignal, usage);
  } catch (error) {
    // No ledger runs (no caps were set): nothing counts spend yet.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/**
 * The ledger as its memo last showed it; null when the key has no ledger running (no caps were
 * ever set) or it has not published yet.
 */
export async function readCaps(client: Client, key: CapsKey | string): Promise<CapsView | null> {
  const { ledger } = await adopted(client, key);
  try {
    const described = await client.workflow.getHandle(capsWorkflowId(ledger)).describe();
    if (described.status.name !== 'RUNNING') return null;
    const memo = described.memo?.caps;
    return memo === undefined ? null : CapsView.parse(memo);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

/** Whether a campaign started now on the key must join its caps ledger: one runs. */
export async function capsRunning(client: Client, key: CapsKey | string): Promise<boolean> {
  const { ledger } = await adopted(client, key);
  try {
    const described = await client.workflow.getHandle(capsWorkflowId(ledger)).describe();
    return described.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * The first client to touch a key's caps continues every older ledger of the key it can name
 * (workflows/caps/engine/adopt.ts): an older engine's, and the one this spelling of the service URL
 * had when ledgers were keyed on the URL's origin with the key. The key's ledger starts with their
 * caps and this period's spend, or, running already, adds them (`caps-adopt`, once per older
 * ledger); each older one ends with a reason that says so. Without this an upgrade would run every
 * campaign uncapped, its caps left behind on a ledger no campaign asks any more.
 */
async function adopted(client: Client, key: CapsKey | string): Promise<CapsKey> {
  const names = typeof key === 'string' ? { ledger: key } : key;
  const checked = adoptionChecked.get(client) ?? new Set<string>();
  adoptionChecked.set(client, checked);
  const id = `${names.ledger} ${names.spelt ?? ''}`;
  if (checked.has(id)) return names;
  for (const older of olderLedgers(names)) await adoptOne(client, names.ledger, older);
  checked.add(id);
  return names;
}

/**
 * Keys this client has looked for an older ledger of: an upgrade is adopted once, and `caps set`
 * reads the ledger every 250 ms while it waits for it to answer (each read would describe the
 * older ledger's id again).
 */
const adoptionChecked = new WeakMap<Client, Set<string>>();

/** Older ledgers of the key: this spelling's, then older engines' (engine 1 had no caps). */
function olderLedgers({ ledger, spelt }: CapsKey): { readonly id: string; readonly reason: string }[] {
  const upgraded = `caps carried over to mediaflow engine ${ENGINE}`;
  const spelling = spelt !== undefined && spelt !== ledger ? [spelt] : [];
  const ids = spelling.map((name) => ({
    id: capsWorkflowId(name),
    reason: `caps carried over to the key's ledger ${capsWorkflowId(ledger)}`,
  }));
  for (let engine = ENGINE - 1; engine >= 2; engine--)
    for (const name of [ledger, ...spelling])
      ids.push({ id: capsWorkflowId(name, engine), reason: upgraded });
  return ids;
}

async function adoptOne(
  client: Client,
  ledger: string,
  { id: olderId, reason }: { readonly id: string; readonly reason: string },
): Promise<void> {
  const older = client.workflow.getHandle(olderId);
  let memo: unknown;
  try {
    const described = await older.describe();
    if (described.status.name !== 'RUNNING') return;
    memo = described.memo?.caps;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
  const view = CapsView.safeParse(memo);
  // A ledger that never published carries nothing: its caps were not taken yet.
  const carried = view.success ? { ...adoptedLedger(view.data, Date.now()), adopted: [olderId] } : undefined;
  try {
    await client.workflow.start(CAPS_WORKFLOW, {
      workflowId: capsWorkflowId(ledger),
      taskQueue: GOVERNOR_TASK_QUEUE,
      args: [{ key: ledger, ...(carried && { carried }) }],
      // Shown at once, before its first task publishes it: `caps show` and preflight read it.
      ...(carried && { memo: { caps: viewOf(carried) } }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    // The key's ledger runs: it takes the older one in (once, however many clients tell it).
    if (view.success)
      await client.workflow
        .getHandle(capsWorkflowId(ledger))
        .signal(capsAdoptSignal, { from: olderId, view: view.data });
  }
  await endOlder(older, reason);
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

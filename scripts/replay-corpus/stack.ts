/**
 * What each recorded campaign runs on: a real Temporal dev server, an in-process emulator and an
 * in-process worker, driven through the same modules the engine tests use (test/engine/harness.ts),
 * without vitest's hooks so the recorder runs as a plain script.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createServiceClient, type ServiceClient } from '../../api/client/index.ts';
import { engineQueue } from '../../contract/engine.ts';
import { startOrAttach } from '../../control/campaign.ts';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../emulator/index.ts';
import { planCampaign } from '../../plan/index.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker, WORKER_NODE_FLAGS } from '../../worker/create-worker.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';

export type CampaignHandle = WorkflowHandle<typeof campaignWorkflow>;

/** One Temporal server's connections, shared by the campaigns recorded on it. */
export interface Temporal {
  readonly address: string;
  readonly client: Client;
  readonly connection: NativeConnection;
  close(): Promise<void>;
}

export async function connectTemporal(address: string): Promise<Temporal> {
  const clientConnection = await Connection.connect({ address });
  const connection = await NativeConnection.connect({ address });
  return {
    address,
    client: new Client({ connection: clientConnection }),
    connection,
    async close() {
      await connection.close();
      await clientConnection.close();
    },
  };
}

/** One shape's campaign: its own folder (the spec, the plan, the outputs), emulator and task queue. */
export interface Campaign {
  readonly shape: string;
  readonly dir: string;
  readonly plan: Plan;
  readonly handle: CampaignHandle;
  readonly temporal: Temporal;
  readonly taskQueue: string;
  emulator: RunningEmulator;
  service: ServiceClient;
  /** A worker on this campaign's task queue, talking to the current emulator. */
  worker(): Promise<Worker>;
  /**
   * `mediaflow worker` as a child process, so it can be killed outright: a worker stopped
   * gracefully finishes its activities first, and nothing is then left to resume.
   */
  spawnWorker(): ChildProcess;
  /** Closes the emulator and its client (the worker must be stopped first). */
  closeEmulator(): Promise<void>;
  /** A fresh emulator on the same port and key: it knows none of the old one's predictions. */
  restartEmulator(): Promise<void>;
}

/**
 * Plans `yaml` in a new temporary folder and starts its workflow (no worker yet). The campaign
 * is named after the shape, so workflow ids read `mediaflow-corpus-<shape>` in the histories.
 */
export async function startCampaign(
  temporal: Temporal,
  shape: string,
  yaml: string,
  emulatorOptions: EmulatorOptions,
  /** A key fingerprint: the campaign joins that rate governor (the recorder runs its worker). */
  governor?: string,
): Promise<Campaign> {
  const dir = await mkdtemp(join(tmpdir(), 'mediaflow-corpus-'));
  const specFile = join(dir, 'spec.yaml');
  await writeFile(specFile, yaml.replace(/^campaign: \S+$/m, `campaign: corpus-${shape}`));
  const result = await planCampaign(specFile);
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  const plan = result.plan;
  // `mediaflow worker --task-queue <named>` (spawnWorker) polls this generation's queue of that name.
  const named = `corpus-${shape}`;
  const taskQueue = engineQueue(named);
  const ref = await storePlan(plan);
  const { handle } = await startOrAttach(temporal.client, plan, ref, taskQueue, governor);

  const options = { port: 0, ...emulatorOptions };
  const emulator = await startEmulator(options);
  const campaign: Campaign = {
    shape,
    dir,
    plan,
    handle,
    temporal,
    taskQueue,
    emulator,
    service: createServiceClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey }),
    worker: () =>
      createMediaflowWorker({
        connection: temporal.connection,
        namespace: 'default',
        client: campaign.service,
        taskQueue,
      }),
    spawnWorker() {
      const log = openSync(join(dir, 'worker.log'), 'a');
      const bin = fileURLToPath(new URL('../../bin/mediaflow.js', import.meta.url));
      return spawn(process.execPath, [...WORKER_NODE_FLAGS, bin, 'worker', '--task-queue', named], {
        stdio: ['ignore', log, log],
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: temporal.address,
          MEDIAFLOW_API_URL: campaign.emulator.baseUrl,
          MEDIAFLOW_API_KEY: campaign.emulator.apiKey,
        },
      });
    },
    async closeEmulator() {
      await campaign.service.close();
      await campaign.emulator.close();
    },
    async restartEmulator() {
      const port = Number(new URL(campaign.emulator.baseUrl).port);
      await campaign.closeEmulator();
      campaign.emulator = await startEmulator({ ...options, port, apiKey: campaign.emulator.apiKey });
      campaign.service = createServiceClient({
        baseUrl: campaign.emulator.baseUrl,
        apiKey: campaign.emulator.apiKey,
      });
    },
  };
  return campaign;
}

/** Runs the campaign to its end with one worker, doing `meanwhile` once the worker is up. */
export async function runToEnd(campaign: Campaign, meanwhile?: () => Promise<void>): Promise<void> {
  const worker = await campaign.worker();
  await worker.runUntil(async () => {
    await meanwhile?.();
    await campaign.handle.result();
  });
}

/**
 * Waits until the emulator has created `count` predictions. The emulator's ledger is read, never
 * the workflow: a query makes the worker run the workflow, and some recordings (detach-resume)
 * must not have any task but the campaign's own in their history's making.
 */
export async function untilCreated(campaign: Campaign, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (campaign.emulator.ledger().predictionsCreated < count) {
    if (Date.now() > deadline) throw new Error(`${campaign.shape}: ${count} predictions not created in time`);
    await sleep(50);
  }
}

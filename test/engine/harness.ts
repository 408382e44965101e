/**
 * A campaign end to end on the suite's real Temporal dev server and a real emulator over HTTP:
 * write a spec, plan it, store the plan, run it with an in-process worker, and read back the
 * emulator's ledger and the manifest.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { onTestFinished } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../api/client/index.ts';
import { quietRuntime } from '../../bench/lib/quiet-runtime.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { engineQueue } from '../../contract/engine.ts';
import { startOrAttach } from '../../control/campaign.ts';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../emulator/index.ts';
import { planCampaign } from '../../plan/index.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker, WORKER_NODE_FLAGS } from '../../worker/create-worker.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import {
  suiteWorkflowBundle,
  temporalAddress,
  temporalClient,
  uniqueTaskQueue,
  workerConnection,
} from '../helpers/temporal.ts';

const BIN = fileURLToPath(new URL('../../bin/mediaflow.js', import.meta.url));

quietRuntime();

export interface Harness {
  readonly dir: string;
  readonly emulator: RunningEmulator;
  readonly service: ServiceClient;
  readonly temporal: Client;
  readonly connection: NativeConnection;
  readonly taskQueue: string;
  /** Writes `spec.yaml` (the campaign name is made unique per test) and plans it. */
  plan(yaml: string): Promise<Plan>;
  /** Runs a plan to its end with an in-process worker, doing `meanwhile` once it has started. */
  run(
    plan: Plan,
    meanwhile?: (handle: WorkflowHandle<typeof campaignWorkflow>) => Promise<void>,
  ): Promise<CampaignProgress>;
  /** Stores the plan and starts its workflow, with no worker. */
  start(plan: Plan): Promise<WorkflowHandle<typeof campaignWorkflow>>;
  /** An in-process worker on this harness's task queue, running until the test ends. */
  startWorker(): Promise<void>;
  /** `mediaflow worker` as a child process on this harness's task queue (killed when the test ends). */
  spawnWorker(): ChildProcess;
  manifest(plan: Plan): Promise<Record<string, unknown>[]>;
}

export interface HarnessOptions extends EmulatorOptions {
  /** A dedicated dev server (restarts, special dynamic config); default the suite's. */
  temporalAddress?: string;
}

export async function harness({
  temporalAddress: address,
  ...options
}: HarnessOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'mediaflow-engine-'));
  const emulator = await startEmulator({ port: 0, timeScale: 0, ...options });
  onTestFinished(() => emulator.close());
  const service = createServiceClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });
  onTestFinished(() => service.close());
  const temporal = await temporalClient(address);
  const connection = await workerConnection(address);
  // `mediaflow worker --task-queue <named>` polls this engine generation's queue of that name.
  const named = uniqueTaskQueue('engine');
  const taskQueue = engineQueue(named);
  const suffix = named.slice(-8);

  let workers = 0;
  const start = async (plan: Plan) => {
    const ref = await storePlan(plan);
    return (await startOrAttach(temporal, plan, ref, taskQueue)).handle;
  };

  return {
    dir,
    emulator,
    service,
    temporal,
    connection,
    taskQueue,
    async plan(yaml) {
      const file = join(dir, 'spec.yaml');
      await writeFile(file, yaml.replace(/^campaign: (\S+)$/m, `campaign: $1-${suffix}`));
      const result = await planCampaign(file);
      if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
      return result.plan;
    },
    async run(plan, meanwhile) {
      const handle = await start(plan);
      const worker = await createMediaflowWorker({
        connection,
        namespace: 'default',
        client: service,
        taskQueue,
        workflowBundle: suiteWorkflowBundle(),
      });
      return worker.runUntil(async () => {
        await meanwhile?.(handle);
        return handle.result();
      });
    },
    start,
    async startWorker() {
      const worker = await createMediaflowWorker({
        connection,
        namespace: 'default',
        client: service,
        taskQueue,
        workflowBundle: suiteWorkflowBundle(),
      });
      const working = worker.run();
      onTestFinished(async () => {
        worker.shutdown();
        await working;
      });
    },
    spawnWorker() {
      const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, BIN, 'worker', '--task-queue', named], {
        // Its output goes to a log beside the outputs, for when a durability test fails.
        stdio: [
          'ignore',
          openSync(join(dir, `worker-${++workers}.log`), 'a'),
          openSync(join(dir, `worker-${workers}.log`), 'a'),
        ],
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: address ?? temporalAddress(),
          MEDIAFLOW_API_URL: emulator.baseUrl,
          MEDIAFLOW_API_KEY: emulator.apiKey,
        },
      });
      onTestFinished(() => {
        child.kill('SIGKILL');
      });
      return child;
    },
    async manifest(plan) {
      const text = await readFile(join(plan.outputDir, 'manifest.jsonl'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/** The ARCHITECTURE.md example, scaled down: 2 hero images, each chained into 2 teaser videos. */
export const CHAINED_SPEC = `
version: 1
campaign: chain
budget: { max_usd: 10 }
concurrency: 8
output: { dir: out }
steps:
  - id: hero
    model: I1
    matrix: { product: [sneaker, watch] }
    input: { prompt: "Acme {{product}} on marble", aspect_ratio: "16:9" }
  - id: teaser
    model: V4
    from: hero
    matrix: { mode: [standard, pro] }
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", mode: "{{mode}}" }
`;

/** Two stills of one prompt: the smallest campaign with files to lose, tamper with or fetch again. */
export function twoStills(campaign: string): string {
  return `
version: 1
campaign: ${campaign}
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: 2
    input: { prompt: "A lamp on an oak table" }
`;
}

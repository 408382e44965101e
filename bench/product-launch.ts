/**
 * The product-launch example (specs/product-launch.yaml: 10 images → 20 videos) measured end to
 * end on a dev server and the emulator at its default latencies: wall time, API requests per job
 * by endpoint (the emulator's ledger) and Temporal history events per job.
 *
 *   npx tsx bench/product-launch.ts [--time-scale 1]
 */
import { cp, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createServiceClient } from '../api/client/index.ts';
import { startOrAttach, workflowIdOf } from '../control/campaign.ts';
import { startEmulator } from '../emulator/index.ts';
import { planCampaign } from '../plan/index.ts';
import { storePlan } from '../records/plan-store.ts';
import { createMediaflowWorker } from '../worker/create-worker.ts';
import { startDevServer } from '../worker/dev-server.ts';

const { values } = parseArgs({ options: { 'time-scale': { type: 'string', default: '1' } } });
Runtime.install({ logger: new DefaultLogger('WARN') });

const dir = await mkdtemp(join(tmpdir(), 'mediaflow-launch-'));
await cp(fileURLToPath(new URL('../specs/product-launch.yaml', import.meta.url)), join(dir, 'spec.yaml'));
const server = await startDevServer({ dbFile: join(dir, 'temporal.db') });
const emulator = await startEmulator({ port: 0, timeScale: Number(values['time-scale']) });
const service = createServiceClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const native = await NativeConnection.connect({ address: server.address });
try {
  const planned = await planCampaign(join(dir, 'spec.yaml'));
  if (!planned.ok) throw new Error('the example does not plan');
  const { plan } = planned;
  const worker = await createMediaflowWorker({ connection: native, namespace: 'default', client: service });
  const started = Date.now();
  const progress = await worker.runUntil(async () => {
    const ref = await storePlan(plan);
    const { handle } = await startOrAttach(client, plan, ref);
    return handle.result();
  });
  const wallMs = Date.now() - started;
  const jobs = plan.jobs.length;
  const ledger = emulator.ledger();
  const requests = Object.fromEntries(
    Object.entries(ledger.requests).map(([route, byStatus]) => [
      route,
      Object.values(byStatus).reduce((a, b) => a + b, 0) / jobs,
    ]),
  );
  let events = 0;
  let runs = 0;
  for await (const run of client.workflow.list({ query: `WorkflowId = "${workflowIdOf(plan.campaign)}"` })) {
    runs++;
    events += (await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory()).events?.length ?? 0;
  }
  const result = {
    date: new Date().toISOString(),
    jobs,
    timeScale: Number(values['time-scale']),
    outcome: progress.outcome,
    wallSeconds: wallMs / 1000,
    predictionsCreated: ledger.predictionsCreated,
    apiRequestsPerJob: Object.values(requests).reduce((a, b) => a + b, 0),
    requestsPerJobByEndpoint: requests,
    historyEventsPerJob: events / jobs,
    workflowRuns: runs,
  };
  console.log(JSON.stringify(result, null, 2));
  await writeFile(
    fileURLToPath(new URL('./results/product-launch.json', import.meta.url)),
    `${JSON.stringify(result, null, 2)}\n`,
  );
} finally {
  await native.close();
  await connection.close();
  await service.close();
  await emulator.close();
  await server.stop();
}

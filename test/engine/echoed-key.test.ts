/**
 * Secrets end to end: a service that echoes the API key (plain, upper and lower case, base64
 * standard and url-safe with and without padding, URL-encoded, inside a base64'd header) in every
 * field of every error, a failed prediction's error included, runs a small campaign to its end.
 * Then every workflow history on the dev server, read with the real `temporal` CLI, and the dev
 * server's SQLite files hold none of those forms, while they do hold the redacted echoes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createServiceClient } from '../../api/client/index.ts';
import { REDACTED } from '../../api/client/redact.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { startDevServer } from '../../worker/dev-server.ts';
import { findTemporalCli, SDK_DOWNLOAD } from '../../worker/temporal-cli.ts';
import { keyFormsIn } from '../helpers/key-forms.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';
import { startEchoProxy } from './echo-proxy.ts';
import { harness } from './harness.ts';

const run = promisify(execFile);
/** URL-special characters, so the URL-encoded form differs from the plain one. */
const KEY = 'mfk_Echo+Key/Secret.42~abc';

const SPEC = `
version: 1
campaign: echo
output: { dir: out }
concurrency: 4
steps:
  - id: still
    model: I4
    repeat: 4
    input: { prompt: "A lamp on an oak table" }
`;

async function histories(cli: string, address: string): Promise<string[]> {
  const common = ['--address', address, '--namespace', 'default', '--output', 'json'];
  const listed = await run(cli, ['workflow', 'list', ...common], { maxBuffer: 64 << 20 });
  const runs = (
    JSON.parse(listed.stdout || '[]') as { execution: { workflowId: string; runId: string } }[]
  ).map((item) => item.execution);
  const shown: string[] = [];
  for (const execution of runs) {
    const args = ['workflow', 'show', '-w', execution.workflowId, '-r', execution.runId, ...common];
    shown.push((await run(cli, args, { maxBuffer: 256 << 20 })).stdout);
  }
  return shown;
}

/** Every file under `dir`, concatenated. */
async function readTree(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, 'latin1')))).join('\n');
}

describe('an echoing service', () => {
  it('leaves no form of the key in any workflow history or in the dev server database', async () => {
    const cli = await findTemporalCli();
    expect(cli, 'the real temporal CLI must be installed for this test').not.toBe(SDK_DOWNLOAD);
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-echo-'));
    const server = await startDevServer({
      dbFile: join(dir, 'temporal.db'),
      logFile: join(dir, 'server.log'),
      cli,
    });
    onTestFinished(() => server.stop());
    const h = await harness({ temporalAddress: server.address, apiKey: KEY });
    const proxy = await startEchoProxy(h.emulator.baseUrl, KEY);
    onTestFinished(() => proxy.close());
    const client = createServiceClient({ baseUrl: proxy.baseUrl, apiKey: KEY });
    onTestFinished(() => client.close());

    const plan = await h.plan(SPEC);
    const handle = await h.start(plan);
    const worker = await createMediaflowWorker({
      connection: h.connection,
      namespace: 'default',
      client,
      taskQueue: h.taskQueue,
      workflowBundle: suiteWorkflowBundle(),
    });
    // The campaign ends however it ends (every job failed or refused): only its traces matter.
    await worker.runUntil(handle.result().catch(() => undefined));

    // The echoes reached the engine: a retried 503, a refused batch item, failed predictions.
    expect(proxy.echoed.create503).toBe(1);
    expect(proxy.echoed.itemRefused).toBeGreaterThan(0);
    expect(proxy.echoed.failedReads).toBeGreaterThan(0);

    // The campaign's plan, claims, records and manifest (failed jobs leave no record today).
    const written = await readTree(plan.outputDir);
    expect(written).toContain(plan.campaign);
    expect(keyFormsIn(written, KEY)).toEqual([]);

    const shown = await histories(cli, server.address);
    expect(shown.length).toBeGreaterThan(0);
    const all = shown.join('\n');
    // The redacted echoes are there: the search below looks where the key would have been.
    expect(all).toContain(REDACTED);
    for (const [i, history] of shown.entries()) expect(keyFormsIn(history, KEY), `history ${i}`).toEqual([]);

    await server.stop(); // flushes SQLite
    const files = (await readdir(dir)).filter((name) => name.startsWith('temporal.db'));
    expect(files).toContain('temporal.db');
    let db = '';
    for (const name of files) db += (await readFile(join(dir, name))).toString('latin1');
    expect(db).toContain(REDACTED);
    expect(db).toContain(plan.campaign);
    expect(keyFormsIn(db, KEY)).toEqual([]);
  }, 180_000);
});

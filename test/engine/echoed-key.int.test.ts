/**
 * Secrets end to end: a service that echoes the API key (plain, upper and lower case, base64
 * standard and url-safe with and without padding, URL-encoded, inside a base64'd header) in every
 * field of every error, a failed prediction's error included, runs a small campaign to its end.
 * Then every history of the campaign, read with the real `temporal` CLI, and the suite's dev
 * server's SQLite files (every history of the run) hold none of those forms, while they do hold
 * the redacted echoes.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { createServiceClient } from '../../api/client/index.ts';
import { REDACTED } from '../../api/client/redact.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { findTemporalCli, SDK_DOWNLOAD } from '../../worker/temporal-cli.ts';
import { keyFormsIn } from '../helpers/key-forms.ts';
import { suiteWorkflowBundle, temporalAddress } from '../helpers/temporal.ts';
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

async function histories(cli: string, address: string, workflowId: string): Promise<string[]> {
  const common = ['--address', address, '--namespace', 'default', '--output', 'json'];
  const query = ['--query', `WorkflowId = "${workflowId}"`];
  const listed = await run(cli, ['workflow', 'list', ...query, ...common], { maxBuffer: 64 << 20 });
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
    const h = await harness({ apiKey: KEY });
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

    const shown = await histories(cli, temporalAddress(), `mediaflow-${plan.campaign}`);
    expect(shown.length).toBeGreaterThan(0);
    const all = shown.join('\n');
    // The redacted echoes are there: the search below looks where the key would have been.
    expect(all).toContain(REDACTED);
    for (const [i, history] of shown.entries()) expect(keyFormsIn(history, KEY), `history ${i}`).toEqual([]);

    // The server keeps running: what it committed is in the file or its write-ahead log.
    const dbFile = inject('temporalDb');
    const files = (await readdir(dirname(dbFile))).filter((name) => name.startsWith(basename(dbFile)));
    expect(files).toContain('temporal.db');
    let db = '';
    // A rollback journal SQLite deletes between the listing and the read held nothing kept.
    for (const name of files) {
      const bytes = await readFile(join(dirname(dbFile), name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' && name !== 'temporal.db') return Buffer.alloc(0);
        throw error;
      });
      db += bytes.toString('latin1');
    }
    expect(db).toContain(REDACTED);
    expect(db).toContain(plan.campaign);
    expect(keyFormsIn(db, KEY)).toEqual([]);
  }, 180_000);
});

/**
 * `mediaflow run`, `status` and `cancel` as a user types them (child processes), against the
 * suite's Temporal and an emulator given by MEDIAFLOW_API_URL, with the worker in-process.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';
import { SPEC } from './helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/mediaflow.js', import.meta.url));
const run = promisify(execFile);

async function setup(spec: string, { workflowThreads = false } = {}) {
  const emulator = await startEmulator({ port: 0, timeScale: 0 });
  onTestFinished(() => emulator.close());
  const dir = await mkdtemp(join(tmpdir(), 'mediaflow-cli-'));
  const campaign = uniqueTaskQueue('cli');
  await writeFile(join(dir, 'spec.yaml'), spec.replace('CAMPAIGN', campaign));
  const env = {
    ...process.env,
    // The suite runs workflows on the worker's own thread (test/global-setup.ts); a user's run, not.
    ...(workflowThreads ? { TEMPORAL_DEBUG: undefined } : {}),
    TEMPORAL_ADDRESS: temporalAddress(),
    MEDIAFLOW_API_URL: emulator.baseUrl,
    MEDIAFLOW_API_KEY: emulator.apiKey,
  };
  const mediaflow = (...args: string[]) =>
    run(process.execPath, [BIN, ...args], { cwd: dir, env, timeout: 60_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  return { emulator, dir, campaign, mediaflow };
}

describe('mediaflow run', () => {
  it('runs a campaign to its files, prints a summary with costs, and status reads it back', async () => {
    const { dir, campaign, mediaflow } = await setup(SPEC, { workflowThreads: true });
    // What an attempt killed mid-download leaves, with no later attempt of its job to clear it.
    await mkdir(join(dir, 'out', 'still'), { recursive: true });
    await writeFile(join(dir, 'out', 'still', 'still-red.png.0a1b2c3d.part'), 'half a picture');
    const result = await mediaflow('run', 'spec.yaml', '--worker');
    expect(result.stderr).toContain('3 of 3 jobs to run, $0.09');
    // Nothing went wrong, so nothing to read in the worker's log (its rate governor included).
    expect(result.stderr).not.toContain('worker warnings are written');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/still\s+I4\s+3\s+3\s+0\s+0/);
    expect(result.stdout).toContain('spent $0.09');
    // Only the outputs: the run removed the temporary file once its campaign was over.
    expect((await readdir(join(dir, 'out', 'still'))).sort()).toEqual([
      'still-blue.png',
      'still-green.png',
      'still-red.png',
    ]);

    const status = await mediaflow('status', campaign, '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      outcome: 'completed',
      spent: '0.09',
      campaign_spent: '0.09',
    });

    // Run again: nothing is made or paid in this run, and it says what the campaign paid.
    const rerun = await mediaflow('run', 'spec.yaml', '--worker');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain('spent $0.00 in this run ($0.09 in all runs)');
    // The records answered that re-run without a workflow (test/cli/rerun.int.test.ts): status still
    // reads the run that made the files.
    const json = JSON.parse((await mediaflow('status', campaign, '--json')).stdout);
    expect(json).toMatchObject({ outcome: 'completed', spent: '0.09', campaign_spent: '0.09' });
  }, 120_000);

  it('refuses to start a plan over its budget, creating nothing', async () => {
    const { emulator, mediaflow } = await setup(SPEC.replace('max_usd: 1', 'max_usd: 0.05'));
    const result = await mediaflow('run', 'spec.yaml', '--worker');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'refusing to start: the 3 jobs left cost $0.09, over the budget of $0.05',
    );
    expect(emulator.ledger().predictionsCreated).toBe(0);
  }, 90_000);

  it('reports spec problems with file:line:col and exits 1 before touching anything', async () => {
    const { emulator, mediaflow } = await setup(SPEC.replace('model: I4', 'model: I9'));
    const result = await mediaflow('run', 'spec.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/spec\.yaml:\d+:\d+: .*I9/);
    expect(emulator.ledger().predictionsCreated).toBe(0);
  }, 90_000);
});

/**
 * Two campaigns on one task queue (a configured Temporal, `run --worker` in both): the worker of
 * the second also runs the first, and what goes wrong there is written to the second's worker
 * log, never printed on its terminal (docs/engine.md, "Campaigns side by side").
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, cleanEnv, mediaflow, SPEC, tempDir, writeSpec } from './helpers.ts';

describe('a second campaign on the same task queue', () => {
  it("never prints the first one's failures; its worker log has them", async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const cwd = await tempDir();
    const queue = uniqueTaskQueue('shared');
    const [first, second] = [uniqueTaskQueue('first'), uniqueTaskQueue('second')];
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', first).replace('dir: out', 'dir: out-a'), 'a.yaml');
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', second).replace('dir: out', 'dir: out-b'), 'b.yaml');
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
    });

    // The first campaign starts with no worker, and then loses its plan: whoever runs it fails.
    const starter = spawn(process.execPath, [BIN, 'run', 'a.yaml', '--no-worker', '--task-queue', queue], {
      cwd,
      env,
      stdio: 'ignore',
    });
    onTestFinished(() => {
      starter.kill('SIGKILL');
    });
    const client = await temporalClient();
    const firstHandle = client.workflow.getHandle(`mediaflow-${first}`);
    onTestFinished(async () => {
      await firstHandle.terminate('test over').catch(() => {});
    });
    await vi.waitFor(() => firstHandle.describe(), { timeout: 30_000, interval: 500 });
    starter.kill('SIGKILL');
    await rm(join(cwd, 'out-a', '.mediaflow', 'plans'), { recursive: true });

    const result = await mediaflow(['run', 'b.yaml', '--worker', '--task-queue', queue], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain(first);
    expect(result.stderr).not.toMatch(/WARN|taskToken|Activity failed/);
    expect(result.stderr.match(/worker warnings are written to /g)).toHaveLength(1);
    expect(result.stderr).toContain(`worker warnings are written to out-b/.mediaflow/logs/${second}.log`);
    const log = await readFile(join(cwd, 'out-b', '.mediaflow', 'logs', `${second}.log`), 'utf8');
    expect(log).toContain(`mediaflow-${first}`); // the second's worker did run the first
  }, 120_000);
});

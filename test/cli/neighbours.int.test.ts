/**
 * Two campaigns on one task queue (a configured Temporal, `run --worker` in both): the worker of
 * the second also runs the first, but what goes wrong there is written to the second's worker
 * log, never printed on its terminal, and the second's run ends with its own campaign
 * (docs/engine.md, "Campaigns side by side").
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, cleanEnv, mediaflow, SPEC, tempDir, writeSpec } from './helpers.ts';

/** Two campaigns (`a.yaml`, `b.yaml`) for one emulator, in one folder, on one fresh task queue. */
async function twoCampaigns(emulatorOptions: Parameters<typeof startEmulator>[0], firstSpec = SPEC) {
  const emulator = await startEmulator(emulatorOptions);
  onTestFinished(() => emulator.close());
  const cwd = await tempDir();
  const queue = uniqueTaskQueue('shared');
  const [first, second] = [uniqueTaskQueue('first'), uniqueTaskQueue('second')];
  await writeSpec(cwd, firstSpec.replace('CAMPAIGN', first).replace('dir: out', 'dir: out-a'), 'a.yaml');
  await writeSpec(cwd, SPEC.replace('CAMPAIGN', second).replace('dir: out', 'dir: out-b'), 'b.yaml');
  const env = cleanEnv({
    TEMPORAL_ADDRESS: temporalAddress(),
    MEDIAFLOW_API_URL: emulator.baseUrl,
    MEDIAFLOW_API_KEY: emulator.apiKey,
  });
  const client = await temporalClient();
  const firstHandle = client.workflow.getHandle(`mediaflow-${first}`);
  onTestFinished(async () => {
    await firstHandle.terminate('test over').catch(() => {});
  });
  /** Starts the first campaign with no worker of its own (the run is killed once it started). */
  async function startFirst(): Promise<void> {
    const starter = spawn(process.execPath, [BIN, 'run', 'a.yaml', '--no-worker', '--task-queue', queue], {
      cwd,
      env,
      stdio: 'ignore',
    });
    onTestFinished(() => {
      starter.kill('SIGKILL');
    });
    await vi.waitFor(() => firstHandle.describe(), { timeout: 30_000, interval: 500 });
    starter.kill('SIGKILL');
  }
  const runSecond = () => mediaflow(['run', 'b.yaml', '--worker', '--task-queue', queue], { cwd, env });
  return { cwd, first, second, firstHandle, startFirst, runSecond };
}

describe('a second campaign on the same task queue', () => {
  it("never prints the first one's failures; its worker log has them", async () => {
    const { cwd, first, second, startFirst, runSecond } = await twoCampaigns({ port: 0, timeScale: 0 });
    // The first campaign loses its plan once started: whoever runs it fails.
    await startFirst();
    await rm(join(cwd, 'out-a', '.mediaflow', 'plans'), { recursive: true });

    const result = await runSecond();
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain(first);
    expect(result.stderr).not.toMatch(/WARN|taskToken|Activity failed/);
    expect(result.stderr.match(/worker warnings are written to /g)).toHaveLength(1);
    expect(result.stderr).toContain(`worker warnings are written to out-b/.mediaflow/logs/${second}.log`);
    const log = await readFile(join(cwd, 'out-b', '.mediaflow', 'logs', `${second}.log`), 'utf8');
    expect(log).toContain(`mediaflow-${first}`); // the second's worker did run the first
  }, 120_000);

  it("ends when its own campaign does, not when the first one's predictions finish", async () => {
    // The first campaign's images take two minutes each; the second's are instant.
    const slow = SPEC.replace('model: I4', 'model: I1');
    const { firstHandle, startFirst, runSecond } = await twoCampaigns(
      { port: 0, timeScale: 1, jitter: false, latencyMs: { I4: 10, I1: 120_000 } },
      slow,
    );
    await startFirst();
    const began = Date.now();
    const result = await runSecond();
    expect(result.code).toBe(0);
    expect(Date.now() - began).toBeLessThan(45_000);
    // The second's worker had taken the first's predictions on; the first is still on its way.
    expect((await firstHandle.describe()).status.name).toBe('RUNNING');
  }, 120_000);
});

/**
 * `run` asks a worker of the campaign's queue whether it can read the plan and write the output
 * folder before it starts anything. The worker here runs as in another container: in a mount
 * namespace of its own whose output folder is an empty tmpfs, so the plan `run` stored is not
 * there for it (the compose setup before workers shared a volume).
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, cleanEnv, mediaflow, SPEC, tempDir, writeSpec } from './helpers.ts';

describe('mediaflow run checks a worker first', () => {
  it('refuses to start when the worker cannot read the plan, naming the worker and the path', async () => {
    const dir = await tempDir();
    const campaign = `access-${uniqueTaskQueue('c').slice(-8)}`;
    await writeSpec(dir, SPEC.replace('CAMPAIGN', campaign));
    await mkdir(join(dir, 'out'));
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const queue = uniqueTaskQueue('access');
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
    });
    const elsewhere = `mount -t tmpfs tmpfs '${join(dir, 'out')}' && exec '${process.execPath}' '${BIN}' worker --task-queue '${queue}'`;
    const worker = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', elsewhere], {
      cwd: dir,
      env,
      stdio: 'ignore',
    });
    onTestFinished(() => {
      worker.kill('SIGKILL');
    });

    const run = await mediaflow(['run', 'spec.yaml', '--no-worker', '--task-queue', queue], {
      cwd: dir,
      env,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `refusing to start: a worker cannot read the plan: worker \\S+ \\(pid \\d+\\) cannot read the plan ${dir}/out/.mediaflow/plans/\\S+/ \\(.*head\\.json is missing in ${dir}/out\\)\\. To go on: give every worker the output folder at the same path`,
      ),
    );
    // Nothing started: no campaign, nothing created.
    const client = await temporalClient();
    await expect(client.workflow.getHandle(`mediaflow-${campaign}`).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    expect(emulator.ledger().predictionsCreated).toBe(0);
  }, 90_000);
});

/**
 * `status` and `cancel` as a user types them, against the suite's Temporal and an emulator in
 * this process: unknown and finished campaigns, and how long a campaign took.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { campaignProgress } from '../../control/campaign-view.ts';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, cleanEnv, lines, mediaflow, SPEC, tempDir, withOwnState, writeSpec } from './helpers.ts';

async function setup(faults: { failRate?: number; slowDownloadMs?: number } = {}) {
  const emulator = await startEmulator({ port: 0, timeScale: 0, faults, seed: 7 });
  onTestFinished(() => emulator.close());
  const cwd = await tempDir();
  const campaign = uniqueTaskQueue('cli');
  await writeSpec(cwd, SPEC.replace('CAMPAIGN', campaign));
  const env = cleanEnv({
    TEMPORAL_ADDRESS: temporalAddress(),
    MEDIAFLOW_API_URL: emulator.baseUrl,
    MEDIAFLOW_API_KEY: emulator.apiKey,
  });
  return { campaign, cwd, env, run: (...args: string[]) => mediaflow(args, { cwd, env }) };
}

const completedLine = (stdout: string) => lines(stdout).find((line) => line.startsWith('Completed in '));

describe('mediaflow status and cancel', () => {
  it('say in one line that a campaign is unknown, exit 1', async () => {
    const { run } = await setup();
    for (const command of ['status', 'cancel']) {
      const result = await run(command, 'no-such-campaign');
      expect(result.code, command).toBe(1);
      expect(lines(result.stderr), command).toHaveLength(1);
      expect(result.stderr, command).toMatch(
        /^mediaflow: no campaign named "no-such-campaign" on \S+ \(namespace default\); /,
      );
    }
  }, 60_000);

  it('status gives a finished campaign the time it took, not the time since it started', async () => {
    const { campaign, run } = await setup();
    expect((await run('run', 'spec.yaml', '--worker')).code).toBe(0);
    const first = await run('status', campaign);
    expect(first.code).toBe(0);
    await sleep(2_500);
    const second = await run('status', campaign);
    expect(completedLine(first.stdout)).toMatch(/^Completed in \d+s; spent \$0\.09/);
    expect(completedLine(second.stdout)).toBe(completedLine(first.stdout));

    // cancel of a finished campaign: nothing left to cancel, with how it ended; not an error.
    const cancel = await run('cancel', campaign);
    expect(cancel.code).toBe(0);
    expect(cancel.stderr).toBe('');
    expect(lines(cancel.stdout)).toEqual([
      `${campaign} had already finished, nothing left to cancel: ${completedLine(first.stdout)}`,
    ]);
  }, 120_000);

  it('status of a running campaign no worker serves shows its progress, paused, at once', async () => {
    const { campaign, run } = await setup();
    // --no-worker on a task queue of its own: the campaign starts and nothing ever runs it.
    const queue = uniqueTaskQueue('idle');
    const started = run('run', 'spec.yaml', '--no-worker', '--task-queue', queue);
    const client = await temporalClient();
    const handle = client.workflow.getHandle(`mediaflow-${campaign}`);
    onTestFinished(async () => {
      await handle.terminate('test over').catch(() => {});
    });
    await vi.waitFor(() => handle.describe(), { timeout: 30_000, interval: 500 });
    const began = Date.now();
    const status = await run('status', campaign);
    expect(Date.now() - began).toBeLessThan(20_000); // a query would wait 30 s for a poller
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(
      'paused: no worker is polling its task queue; npm run mediaflow -- worker resumes it',
    );
    expect(status.stdout).toMatch(/\b0\b.*\b0\b/); // the memo's progress: nothing ran
    expect(status.stderr).toBe('');
    await handle.terminate('test over');
    expect((await started).code).toBe(1);
  }, 90_000);

  it('status says paused soon after Ctrl-C, while the server still lists the gone worker as a recent poller', async () => {
    // Downloads that take ten minutes: the campaign is mid-way when its worker leaves.
    const { campaign, cwd, env, run } = await setup({ slowDownloadMs: 600_000 });
    const client = await temporalClient();
    const handle = client.workflow.getHandle(`mediaflow-${campaign}`);
    onTestFinished(async () => {
      await handle.terminate('test over').catch(() => {});
    });
    const child = spawn(process.execPath, [BIN, 'run', 'spec.yaml', '--worker'], {
      cwd,
      env: withOwnState(cwd, env),
      stdio: 'ignore',
    });
    const exited = once(child, 'exit');
    // Waited for through the library `status` reads (each `status` typed costs a second of CPU);
    // what `status` shows is checked once it is due.
    await vi.waitFor(
      async () => {
        const { progress, paused } = await campaignProgress(client, campaign);
        expect({ paused, outcome: progress.outcome }).toEqual({ paused: false, outcome: 'running' });
        expect(progress.steps[0]!.running).toBeGreaterThan(0);
      },
      { timeout: 90_000, interval: 500 },
    );
    child.kill('SIGINT');
    expect((await exited)[0]).toBe(130);
    await vi.waitFor(async () => expect((await campaignProgress(client, campaign)).paused).toBe(true), {
      timeout: 150_000,
      interval: 1_000,
    });
    const shown = JSON.parse((await run('status', campaign, '--json')).stdout);
    expect(shown.paused).toBe(true);
    // Told by the workflow task its pulse scheduled and no worker started: the poller is still
    // listed as seen within the two minutes that alone once kept it "running" (the trial's 70 s).
    const { taskQueue } = await handle.describe();
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue },
      taskQueueType: 1,
    });
    const seen = Math.max(...(pollers ?? []).map((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000));
    expect(Date.now() - seen).toBeLessThan(120_000);
    expect(shown.eta_ms).toBeNull();
    const text = await run('status', campaign);
    expect(text.stdout).toMatch(
      /^Paused \(no worker\), started \S+ ago; spent \$[\d.]+ \+ \$[\d.]+ committed/m,
    );
    expect(text.stdout).not.toMatch(/Running for|left/);
  }, 300_000);

  it('run and status show the jobs made again (paid more than once)', async () => {
    // Most predictions fail: some jobs are regenerated, whether or not they end with a file.
    const { campaign, run } = await setup({ failRate: 0.8 });
    const result = await run('run', 'spec.yaml', '--worker');
    const status = await run('status', campaign);
    for (const { stdout } of [result, status]) {
      const [header, row] = lines(stdout).filter((line) => /^(step|still)\s/.test(line));
      expect(header).toMatch(/\bregenerated$/);
      expect(Number(row!.split(/\s+/).at(-1))).toBeGreaterThan(0);
    }
  }, 120_000);
});

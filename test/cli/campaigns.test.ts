/**
 * `status` and `cancel` as a user types them, against the suite's Temporal and an emulator in
 * this process: unknown and finished campaigns, and how long a campaign took.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { cleanEnv, lines, mediaflow, SPEC, tempDir, writeSpec } from './helpers.ts';

async function setup(faults: { failRate?: number } = {}) {
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
  return { campaign, run: (...args: string[]) => mediaflow(args, { cwd, env }) };
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

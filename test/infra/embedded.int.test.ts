/**
 * The embedded stack is a service (ARCHITECTURE.md decision 14): started by the first command
 * that needs it, outliving that command (Ctrl-C included), reused by the next, stopped only by
 * `mediaflow stack stop`, which refuses while campaigns run unless forced.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { governorWorkflowId } from '../../contract/governor-messages.ts';
import { GOVERNOR_WORKFLOW } from '../../control/governor.ts';
import { temporalAnswers } from '../../worker/dev-server.ts';
import { startEmbedded } from '../../worker/embedded.ts';
import { temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { bothAlive, record, stackCli, stackStateDir } from './embedded-helpers.ts';

const stateDir = await stackStateDir();

async function emulatorAnswers(baseUrl: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/health`).catch(() => undefined);
  return response?.ok ?? false;
}

/**
 * A command in a terminal: its own process group, as a shell's foreground job. It starts the
 * stack, then the "user" presses Ctrl-C: SIGINT to the whole group.
 */
async function clientInterruptedByCtrlC(): Promise<void> {
  const script = `
    import { startEmbedded } from ${JSON.stringify(join(process.cwd(), 'worker/embedded.ts'))};
    await startEmbedded({ stateDir: ${JSON.stringify(stateDir)} });
    console.log('started');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGINT');
  await exited;
}

describe('the embedded stack', () => {
  it('outlives the command that started it (Ctrl-C included) and is left running by the next ones', async () => {
    await clientInterruptedByCtrlC();
    const stack = record(stateDir);
    expect(bothAlive(stack)).toBe(true);
    expect(await temporalAnswers(stack.temporal.address)).toBe(true);
    expect(await emulatorAnswers(stack.emulator.baseUrl)).toBe(true);

    const unknown = await stackCli(stateDir, ['status', 'no-such-campaign']);
    expect(unknown.code).toBe(1);
    const status = await stackCli(stateDir, ['stack', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`pid ${stack.temporal.pgid}`);
    expect(status.stdout).toContain(`pid ${stack.emulator.pgid}`);
    expect(status.stdout).toContain('campaigns running: none');
    expect(status.stdout).not.toContain(stack.emulator.apiKey);

    expect(record(stateDir)).toEqual(stack); // the same stack, not a new one
    expect(bothAlive(stack)).toBe(true);
    expect(await temporalAnswers(stack.temporal.address)).toBe(true);
    expect(await emulatorAnswers(stack.emulator.baseUrl)).toBe(true);
  });

  it('stack stop refuses while a campaign runs, stops with --force, and a restart keeps the campaign', async () => {
    const first = await startEmbedded({ stateDir });
    const client = await temporalClient(first.temporalAddress);
    await client.workflow.start('neverPolled', {
      taskQueue: uniqueTaskQueue(),
      workflowId: 'mediaflow-idle-campaign',
    });
    // A key's rate governor, as one lingers a minute after each run: neither a campaign nor a reason to refuse.
    await client.workflow.start(GOVERNOR_WORKFLOW, {
      taskQueue: uniqueTaskQueue(),
      workflowId: governorWorkflowId('0'.repeat(32)),
      args: [{ key: '0'.repeat(32) }],
    });
    expect((await stackCli(stateDir, ['stack', 'status'])).stdout).toContain(
      'campaigns running: idle-campaign\n',
    );
    const stack = record(stateDir);

    const refused = await stackCli(stateDir, ['stack', 'stop']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('1 campaign(s) running on it (idle-campaign)');
    expect(refused.stderr).toContain('stack stop --force');
    expect(bothAlive(stack)).toBe(true);

    const forced = await stackCli(stateDir, ['stack', 'stop', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('Paused, not canceled: idle-campaign');
    expect(bothAlive(stack)).toBe(false);
    expect((await stackCli(stateDir, ['stack', 'status'])).stdout).toContain('embedded stack: not running');

    // Started again: same addresses and key (a worker still running elsewhere carries on), same campaign.
    const second = await startEmbedded({ stateDir });
    expect(second.attached).toBe(false);
    expect(second.temporalAddress).toBe(first.temporalAddress);
    expect(second.service).toEqual(first.service);
    const resumed = (await temporalClient(second.temporalAddress)).workflow.getHandle(
      'mediaflow-idle-campaign',
    );
    expect((await resumed.describe()).status.name).toBe('RUNNING');

    await resumed.terminate('test over');
    // The governor still runs (never polled here): stop does not wait for it.
    const stopped = await stackCli(stateDir, ['stack', 'stop']);
    expect(stopped.code).toBe(0);
    expect(bothAlive(stack)).toBe(false);
  });
});

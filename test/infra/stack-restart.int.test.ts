/**
 * Stopping and starting the embedded stack in the middle of a campaign loses nothing and pays
 * for nothing twice: the emulator's state file brings back the predictions that were in flight
 * (they finish at their due time), their outputs are served again, and the campaign completes
 * with every file and as many predictions as it has jobs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbedded } from '../../worker/embedded.ts';
import { BIN, cleanEnv } from '../cli/helpers.ts';
import { bothAlive, ledgerOf, record, stackCli, stackStateDir, until } from './embedded-helpers.ts';

const stateDir = await stackStateDir();
/** Every model takes 2 s: long enough to stop the stack with predictions in flight. */
const EMULATOR_ARGS = ['--latency-ms', '2000', '--no-jitter'];

const SPEC = `
version: 1
campaign: restart-drill
budget: { max_usd: 5 }
concurrency: 2
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { color: [red, green, blue] }
    input: { prompt: "A {{color}} mug on oak" }
  - id: clip
    model: V4
    from: still
    input: { prompt: "The mug turns slowly", start_image: "{{from.output}}", duration: "5" }
`;
const JOBS = 6;

function run(): { child: ChildProcess; exit: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, [BIN, 'run', 'spec.yaml'], {
    cwd: stateDir,
    env: cleanEnv({ MEDIAFLOW_STATE_DIR: stateDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, output: () => output };
}

describe('stopping the embedded stack mid-campaign', () => {
  it('resumes with 0 extra predictions and every file', async () => {
    await writeFile(join(stateDir, 'spec.yaml'), SPEC);
    await startEmbedded({ stateDir, emulatorArgs: EMULATOR_ARGS });
    const before = record(stateDir);

    const first = run();
    await until(async () => (await ledgerOf(before)).predictionsCreated >= 2, 90_000);
    first.child.kill('SIGINT'); // Ctrl-C: detach
    expect(await first.exit).toBe(130);
    const created = (await ledgerOf(before)).predictionsCreated;
    expect(created).toBeLessThan(JOBS);

    expect((await stackCli(stateDir, ['stack', 'stop'])).code).toBe(1); // the campaign runs
    expect((await stackCli(stateDir, ['stack', 'stop', '--force'])).code).toBe(0);
    expect(bothAlive(before)).toBe(false);

    // Started again (as `run` would, with the same test latencies): the ledger is the one it had.
    await startEmbedded({ stateDir, emulatorArgs: EMULATOR_ARGS });
    const after = record(stateDir);
    expect(after.emulator.pgid).not.toBe(before.emulator.pgid);
    expect((await ledgerOf(after)).predictionsCreated).toBe(created);

    const second = run();
    expect(await second.exit, second.output()).toBe(0);
    const ledger = await ledgerOf(after);
    expect(ledger).toMatchObject({ predictionsCreated: JOBS, duplicates: 0, failedPredictions: 0 });
    expect(Object.keys(ledger.byIdempotencyKey)).toHaveLength(JOBS);
    expect(readdirSync(join(stateDir, 'out', 'still')).filter((f) => f.endsWith('.png'))).toHaveLength(3);
    expect(readdirSync(join(stateDir, 'out', 'clip')).filter((f) => f.endsWith('.mp4'))).toHaveLength(3);
  }, 240_000);
});

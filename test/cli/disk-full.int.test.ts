/**
 * The drill, short: `mediaflow run` with its output folder on a real 8 MB tmpfs that a
 * filler file takes to the last byte after 2 files. The outputs, the records, the claims and the
 * worker's log all live there. The run must end with `disk_full` and the fix (not hang: before,
 * the worker's log threw ENOSPC inside the runtime's activity interceptor and the activity was
 * retried forever), and once space is freed the same spec finishes, each job paid once. The
 * suite runs as root (as CI does), so it mounts; see bench/drills/stop-kit.ts.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  diskUse,
  fillToTheLastByte,
  mountTmpfs,
  paidOnce,
  unmountTmpfs,
} from '../../bench/drills/stop-kit.ts';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, cleanEnv, type Outcome } from './helpers.ts';

const JOBS = 40;
const spec = (campaign: string) => `
version: 1
campaign: ${campaign}
concurrency: 4
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: ${JOBS}
    input: { prompt: "Acme sneaker on marble", aspect_ratio: "1:1" }
`;

function mediaflow(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve) => {
    // Bounded well past the minute the stop may take: a hang ends as a failed test, not a stuck suite.
    execFile(process.execPath, [BIN, ...args], { cwd, env, timeout: 150_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('run on a disk with 0 bytes free', () => {
  it('ends with disk_full and the fix; after freeing space the same spec finishes, each job paid once', {
    timeout: 300_000,
  }, async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 1, latencyMs: 400, jitter: false });
    onTestFinished(() => emulator.close());
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-full-'));
    const out = join(dir, 'out');
    await mkdir(out);
    mountTmpfs(out, '8m');
    onTestFinished(() => unmountTmpfs(out));
    const campaign = uniqueTaskQueue('full');
    await writeFile(join(dir, 'spec.yaml'), spec(campaign));
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
    });
    const args = ['run', 'spec.yaml', '--worker', '--task-queue', campaign];

    const running = mediaflow(args, dir, env);
    const pngs = async () =>
      (await readdir(join(out, 'still')).catch(() => [])).filter((f) => f.endsWith('.png'));
    while ((await pngs()).length < 2) await new Promise((r) => setTimeout(r, 50));
    fillToTheLastByte(join(out, 'filler'));
    expect((await diskUse(out)).free).toBe(0);

    const stopped = await running;
    expect(stopped.stderr).toMatch(/disk is full \(output\.dir: .*out\); to go on: free space/);
    expect(stopped.code).toBe(3);
    expect((await pngs()).length).toBeLessThan(JOBS);

    await rm(join(out, 'filler'));
    const finished = await mediaflow(args, dir, env);
    expect(finished.code, finished.stderr).toBe(0);
    expect(await pngs()).toHaveLength(JOBS);
    expect(paidOnce(emulator.ledger(), JOBS)).toMatchObject({ ok: true });
  });
});

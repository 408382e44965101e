/**
 * `mediaflow worker` as a supervisor runs it (worker/worker-process.ts): a health endpoint that
 * says when it polls, Prometheus metrics when asked, and a SIGTERM that lets the activities it
 * runs (waiting on predictions) finish before the process exits 0, so nothing is bought again.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { engineQueue } from '../../contract/engine.ts';
import { WORKER_NODE_FLAGS } from '../../worker/create-worker.ts';
import { freePort } from '../../worker/process-group.ts';
import { healthOf, shutdownTimes } from '../../worker/worker-process.ts';
import { BIN } from '../cli/helpers.ts';
import { type Harness, harness, twoStills } from '../engine/harness.ts';
import { temporalAddress } from '../helpers/temporal.ts';

/** PENDING_ACTIVITY_STATE_STARTED (the enum lives in @temporalio/proto, not a dependency). */
const STARTED = 2;

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await sleep(50);
  }
}

async function status(url: string): Promise<number | undefined> {
  return fetch(url).then(
    (response) => response.status,
    () => undefined,
  );
}

/** `mediaflow worker` with `args` as a supervisor starts it, against the harness's emulator. */
function spawnWorker(h: Harness, args: readonly string[]) {
  const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, BIN, ...args], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: h.emulator.baseUrl,
      MEDIAFLOW_API_KEY: h.emulator.apiKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, output: () => output };
}

describe('worker health and drain times', () => {
  it.each([
    [['RUNNING', 'RUNNING'], true],
    [['RUNNING', 'STOPPING'], false],
    [['DRAINING', 'RUNNING'], false],
    [['FAILED', 'RUNNING'], false],
    [['INITIALIZED', 'RUNNING'], false],
  ] as const)('workers %j are healthy: %s', (states, ok) => {
    expect(healthOf(states.map((state) => ({ getState: () => state }))).ok).toBe(ok);
  });

  it('lets go of activities a few seconds after the grace period, not before', () => {
    expect(shutdownTimes(30)).toEqual({ shutdownGraceTime: 30_000, shutdownForceTime: 35_000 });
  });
});

describe('a worker process under a supervisor', () => {
  it('answers health and metrics, and on SIGTERM lets its running activities finish, then exits 0', async () => {
    // 4 s per prediction: in flight when the signal comes, so the drain lasts. Every create counts.
    const h = await harness({ timeScale: 1, latencyMs: 4_000, jitter: false, ignoreIdempotency: true });
    const plan = await h.plan(twoStills('drain'));
    const [healthPort, metricsPort] = [await freePort(), await freePort()];
    const health = `http://127.0.0.1:${healthPort}/health`;
    // `--task-queue` names the queue; the worker polls this engine generation's queue of that name.
    const named = h.taskQueue.slice(0, -engineQueue('').length);
    const args = ['worker', '--task-queue', named, '--health-port', String(healthPort)];
    args.push('--metrics-address', `127.0.0.1:${metricsPort}`, '--shutdown-grace', '20');
    const { child, exit, output } = spawnWorker(h, args);

    await until(async () => (await status(health)) === 200);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^temporal_\w+/m);

    const handle = await h.start(plan);
    // Signalled while it waits on a prediction (a finish activity started), not between tasks.
    await until(async () => {
      const { pendingActivities } = (await handle.describe()).raw;
      return (pendingActivities ?? []).some(
        (a) => a.activityType?.name?.startsWith('finish') && a.state === STARTED,
      );
    });
    child.kill('SIGTERM');
    // Draining: no longer healthy, still there until the predictions are done and their files kept.
    await until(async () => (await status(health)) === 503, 3_000);
    expect(await exit, output()).toBe(0);
    // Every activity it had started ended completed, none failed or timed out to be run again.
    const events = (await handle.fetchHistory()).events ?? [];
    const started = events.filter((e) => e.activityTaskStartedEventAttributes).length;
    expect(started).toBeGreaterThan(0);
    expect(events.filter((e) => e.activityTaskCompletedEventAttributes)).toHaveLength(started);

    // Another worker ends the campaign with what the first one kept: nothing bought again.
    await h.startWorker();
    expect((await handle.result()).outcome).toBe('completed');
    expect(h.emulator.ledger()).toMatchObject({ predictionsCreated: 2, duplicates: 0 });
  }, 60_000);

  it('exits 0 soon after its grace period, even while a download it no longer answers for stalls', async () => {
    // Every download pauses for two minutes halfway: the finish is still saving when the drain ends.
    const h = await harness({ faults: { slowDownloadMs: 120_000 } });
    const plan = await h.plan(twoStills('drain-stall'));
    const named = h.taskQueue.slice(0, -engineQueue('').length);
    const args = ['worker', '--task-queue', named, '--shutdown-grace', '1'];
    const { child, exit, output } = spawnWorker(h, args);
    const handle = await h.start(plan);
    await until(async () => {
      const { pendingActivities } = (await handle.describe()).raw;
      return (pendingActivities ?? []).some(
        (a) => a.activityType?.name?.startsWith('finish') && a.state === STARTED,
      );
    });
    // Two seconds into the stalled download: the pause holds the body open.
    await sleep(2_000);
    child.kill('SIGTERM');
    // The grace (1 s), the SDK's force period (5 s) and the pool's moment (2 s), far below the stall.
    expect(await exit, output()).toBe(0);
  }, 60_000);
});

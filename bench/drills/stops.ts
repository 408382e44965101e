/**
 * `disk-full` and `key-deleted`: a condition of the whole campaign must end it with its named
 * outcome within a minute, never an endless retry, and once the user fixed the cause the same
 * spec run again must finish with each job paid once (the emulator's ledger: one prediction per
 * job, every Idempotency-Key used for one prediction). The short versions are
 * test/engine/stops.int.test.ts (same helpers: stop-kit.ts); the shared run is stop-drill.ts.
 *
 * - disk-full: the output folder is a tmpfs; once a tenth of the files landed it is shrunk so it
 *   fills about halfway through. After the stop it is grown (`mount -o remount,size=…`) and the
 *   campaign run again.
 * - key-deleted: a second API key is created; a third of the way through, every other key
 *   (the campaign's) is deleted through the API. The workers are then replaced by one holding the
 *   new key, and the campaign run again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createServiceClient } from '../../api/client/index.ts';
import { storePlan } from '../../records/plan-store.ts';
import { WORKER_NODE_FLAGS } from '../../worker/create-worker.ts';
import type { Stack } from '../lib/stack.ts';
import type { DrillReport } from './report.ts';
import {
  awaitStop,
  launch,
  manifestLines,
  paramsOf,
  planIn,
  rerunAndReport,
  type StopDrillOptions,
  stackFor,
} from './stop-drill.ts';
import { deleteKeysExcept, diskUse, mountTmpfs, resizeTmpfs, unmountTmpfs } from './stop-kit.ts';

export type { StopDrillOptions } from './stop-drill.ts';

const POLL_MS = 100;
const BIN = fileURLToPath(new URL('../../bin/mediaflow.js', import.meta.url));

export async function diskFullDrill(opts: StopDrillOptions = {}): Promise<DrillReport> {
  const params = paramsOf(opts);
  const stack = await stackFor(params);
  const folder = join(stack.dir, 'campaign');
  const out = join(folder, 'out');
  let mounted = false;
  let keep = true;
  try {
    await mkdir(out, { recursive: true });
    mountTmpfs(out, '256m');
    mounted = true;
    const plan = await planIn(folder, params);
    const ref = await storePlan(plan);
    const before = await diskUse(out);

    const drill = { name: 'disk-full', outcome: 'disk_full', params, started: Date.now() } as const;
    const running = await launch(stack, plan, ref);
    // Once a tenth of the files landed, the bytes a job takes are known: shrink the tmpfs so it
    // fills about halfway through the campaign.
    let shrunkTo = 0;
    let perJobBytes = 0;
    while (!running.ended() && (await manifestLines(plan)) < plan.jobs.length / 10) await sleep(POLL_MS);
    if (!running.ended()) {
      const now = await diskUse(out);
      perJobBytes = (now.used - before.used) / Math.max(1, await manifestLines(plan));
      shrunkTo = Math.ceil((now.used + perJobBytes * plan.jobs.length * 0.4) / 4096) * 4096;
      resizeTmpfs(out, `${Math.round(shrunkTo / 1024)}k`);
    }
    // The cause, seen from outside: the moment the folder has no room left for one more job.
    const seen = await awaitStop(stack, plan, running, drill, async () =>
      shrunkTo > 0 && (await diskUse(out)).free < Math.max(8_192, perJobBytes) ? Date.now() : null,
    );
    if ('hung' in seen) {
      keep = false;
      return seen.hung;
    }
    // And from inside: the first ENOSPC a worker logged (its log lines carry their time).
    const logged = await firstLogged(
      stack.workers.map((w) => w.log),
      /ENOSPC|EDQUOT/,
    );
    const causeAt = logged ?? seen.causeAt;

    resizeTmpfs(out, '256m');
    const report = await rerunAndReport(
      stack,
      plan,
      drill,
      seen.stopped,
      causeAt === null ? null : seen.stoppedAt - causeAt,
      {
        tmpfs: {
          bytesAtStart: before.used,
          bytesPerJob: Math.round(perJobBytes),
          shrunkTo,
          fullAfterMs: seen.causeAt === null ? null : seen.causeAt - drill.started,
          firstEnospcLoggedAfterMs: logged === null ? null : logged - drill.started,
        },
        firstRunMs: seen.stoppedAt - drill.started,
      },
    );
    keep = !report.ok;
    return report;
  } finally {
    if (mounted) unmountTmpfs(out);
    await stack.stop({ keepDir: keep });
  }
}

export async function keyDeletedDrill(opts: StopDrillOptions = {}): Promise<DrillReport> {
  const params = paramsOf(opts);
  const stack = await stackFor(params);
  const owner = createServiceClient({ baseUrl: stack.emulatorUrl, apiKey: stack.apiKey });
  let replacement: ReturnType<typeof createServiceClient> | null = null;
  let worker: ChildProcess | null = null;
  let keep = true;
  try {
    const created = await owner.apiKeys.create('replacement');
    if (!created.key) throw new Error('the service did not return the new key');
    replacement = createServiceClient({ baseUrl: stack.emulatorUrl, apiKey: created.key });
    const plan = await planIn(join(stack.dir, 'campaign'), params);

    const drill = {
      name: 'key-deleted',
      outcome: 'authentication_failed',
      params,
      started: Date.now(),
    } as const;
    const running = await launch(stack, plan, await storePlan(plan));
    // The cause: a third of the predictions created with the campaign's key, then it is deleted.
    while (!running.ended() && (await stack.ledger()).predictionsCreated < plan.jobs.length / 3)
      await sleep(POLL_MS);
    let deletedAt: number | null = null;
    let deleted: string[] = [];
    if (!running.ended()) {
      deleted = await deleteKeysExcept(replacement, created.id);
      deletedAt = Date.now();
    }
    const seen = await awaitStop(stack, plan, running, drill, async () => deletedAt);
    if ('hung' in seen) {
      keep = false;
      return seen.hung;
    }

    // The fix: workers get the new key (the old ones hold the deleted one).
    await Promise.all(stack.workers.map((w) => w.kill('SIGTERM')));
    worker = spawnWorker(stack, created.key, join(stack.dir, 'logs', 'worker-new-key.log'));
    const report = await rerunAndReport(
      stack,
      plan,
      drill,
      seen.stopped,
      deletedAt === null ? null : seen.stoppedAt - deletedAt,
      {
        keysDeleted: deleted.length,
        deletedAfterMs: deletedAt === null ? null : deletedAt - drill.started,
        firstRunMs: seen.stoppedAt - drill.started,
      },
    );
    keep = !report.ok;
    return report;
  } finally {
    worker?.kill('SIGKILL');
    await owner.close();
    await replacement?.close();
    await stack.stop({ keepDir: keep });
  }
}

/** The time of the first line matching `pattern` in any of the logs (the SDK's lines start with an ISO time). */
async function firstLogged(logs: readonly string[], pattern: RegExp): Promise<number | null> {
  let first: number | null = null;
  for (const log of logs) {
    let time: number | null = null;
    for (const line of (await readFile(log, 'utf8').catch(() => '')).split('\n')) {
      const stamp = /^(\d{4}-\d\d-\d\dT[\d:.]+Z)/.exec(line);
      if (stamp) time = Date.parse(stamp[1]!);
      if (time !== null && pattern.test(line)) {
        first = first === null ? time : Math.min(first, time);
        break;
      }
    }
  }
  return first;
}

/** `mediaflow worker` on the stack's queue with `apiKey` (the stack's own workers hold the stack's key). */
function spawnWorker(stack: Stack, apiKey: string, log: string): ChildProcess {
  const output = openSync(log, 'a');
  return spawn(process.execPath, [...WORKER_NODE_FLAGS, BIN, 'worker', '--task-queue', stack.taskQueue], {
    stdio: ['ignore', output, output],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      MEDIAFLOW_API_URL: stack.emulatorUrl,
      MEDIAFLOW_API_KEY: apiKey,
    },
  });
}

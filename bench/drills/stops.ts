/**
 * `disk-full` and `key-deleted`: a condition of the whole campaign must end it with its named
 * outcome within a minute, never an endless retry, and once the user fixed the cause the same
 * spec run again must finish with each job paid once (the emulator's ledger: one prediction per
 * job, every Idempotency-Key used for one prediction). The short versions are
 * test/engine/stops.test.ts (same helpers: stop-kit.ts).
 *
 * - disk-full: the output folder is a tmpfs; once a tenth of the files landed it is shrunk so it
 *   fills about halfway through. After the stop it is grown (`mount -o remount,size=…`) and the
 *   campaign run again.
 * - key-deleted: a second API key is created; a third of the way through, every other key
 *   (the campaign's) is deleted through the API. The workers are then replaced by one holding the
 *   new key, and the campaign run again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { storePlan } from '../../activities/plan-store.ts';
import { createServiceClient } from '../../api/client/index.ts';
import { formatUsd, parseUsd } from '../../api/money.ts';
import type { CampaignProgress, PlanRef } from '../../contract/campaign.ts';
import { formatProblem, planCampaign } from '../../plan/index.ts';
import type { Plan } from '../../plan/types.ts';
import { startOrAttach } from '../../worker/campaign-control.ts';
import { WORKER_NODE_FLAGS } from '../../worker/create-worker.ts';
import type { campaignWorkflow } from '../../workflows/campaign.ts';
import { type Stack, startStack } from '../lib/stack.ts';
import { type Check, check, type DrillReport, drillReport } from './report.ts';
import { stillsSpec } from './specs.ts';
import { deleteKeysExcept, diskUse, mountTmpfs, paidOnce, resizeTmpfs, unmountTmpfs } from './stop-kit.ts';
import { readManifest } from './verify.ts';

export interface StopDrillOptions {
  /** I4 stills, default 300. */
  jobs?: number;
  seed?: number;
  /** Latency of a still (ms, with the emulator's jitter), default 800. */
  latencyMs?: number;
  concurrency?: number;
}

/** The goal: a named stop within a minute of its cause. */
const STOP_WITHIN_MS = 60_000;
const RUN_TIMEOUT_MS = 5 * 60_000;
const POLL_MS = 100;
const BIN = fileURLToPath(new URL('../../bin/mediaflow.js', import.meta.url));

function paramsOf(opts: StopDrillOptions) {
  return {
    jobs: opts.jobs ?? 300,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    latencyMs: opts.latencyMs ?? 800,
    concurrency: opts.concurrency ?? 20,
  };
}

async function stackFor(params: ReturnType<typeof paramsOf>): Promise<Stack> {
  return startStack({
    emulator: {
      latencyMs: { I4: params.latencyMs },
      seed: params.seed,
      limits: { createsPerMinute: 6_000, requestsPerMinute: 100_000, maxInFlight: 200 },
    },
  });
}

/** The spec written into `folder` and planned (its output folder is `folder/out`). */
async function planIn(folder: string, params: ReturnType<typeof paramsOf>): Promise<Plan> {
  await mkdir(join(folder, 'out'), { recursive: true });
  const file = join(folder, 'spec.yaml');
  await writeFile(file, stillsSpec({ jobs: params.jobs, concurrency: params.concurrency }));
  const planned = await planCampaign(file);
  if (!planned.ok) throw new Error(planned.problems.map(formatProblem).join('\n'));
  return planned.plan;
}

/** Starts (or re-starts, once the last run closed) the campaign, as `run --no-worker` does. */
async function start(
  stack: Stack,
  plan: Plan,
  ref: PlanRef,
): Promise<WorkflowHandle<typeof campaignWorkflow>> {
  return (await startOrAttach(stack.client, plan, ref, stack.taskQueue)).handle;
}

async function resultOf(handle: WorkflowHandle<typeof campaignWorkflow>): Promise<CampaignProgress> {
  const timeout = sleep(RUN_TIMEOUT_MS).then(() => {
    throw new Error(`${handle.workflowId} did not end within ${RUN_TIMEOUT_MS} ms`);
  });
  return Promise.race([handle.result(), timeout]);
}

async function manifestLines(plan: Plan): Promise<number> {
  const text = await readFile(join(plan.outputDir, 'manifest.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).length;
}

const total = (progress: CampaignProgress, field: 'succeeded' | 'cached' | 'failed' | 'created') =>
  progress.steps.reduce((n, s) => n + s[field], 0);

/** Every file of the manifest hashes to its sha256; one line per job. */
async function filesCheck(plan: Plan): Promise<Check> {
  const manifest = await readManifest(plan.outputDir);
  let mismatched = 0;
  for (const entry of manifest.entries) {
    const data = await readFile(join(plan.outputDir, entry.file)).catch(() => null);
    if (!data || createHash('sha256').update(data).digest('hex') !== entry.sha256) mismatched++;
  }
  return check(
    'every job has its file, once, with a matching sha256',
    manifest.entries.length === plan.jobs.length &&
      manifest.badLines === 0 &&
      manifest.duplicateKeys === 0 &&
      mismatched === 0,
    `${manifest.entries.length} manifest entries for ${plan.jobs.length} jobs, ${manifest.badLines} unparsable, ` +
      `${manifest.duplicateKeys} repeated keys, ${mismatched} sha256 mismatches`,
  );
}

/** What both drills check of the stop, the re-run and the money. */
async function stopAndRerunChecks(
  stack: Stack,
  plan: Plan,
  outcome: string,
  stopped: CampaignProgress,
  stopMs: number | null,
  finished: CampaignProgress,
): Promise<{ checks: Check[]; numbers: Record<string, unknown> }> {
  const ledger = await stack.ledger();
  const manifest = await readManifest(plan.outputDir);
  const manifestCredits = manifest.entries.reduce((n, e) => n + parseUsd(e.credits_used ?? '0'), 0);
  const charged = parseUsd(ledger.creditsCharged);
  const paid = paidOnce(ledger, plan.jobs.length);
  const numbers = {
    jobs: plan.jobs.length,
    stoppedWith: stopped.outcome,
    stopMessage: stopped.stopMessage ?? null,
    stopMs,
    atStop: {
      succeeded: total(stopped, 'succeeded'),
      created: total(stopped, 'created'),
      failed: total(stopped, 'failed'),
      spent: formatUsd(stopped.spent),
    },
    rerun: {
      outcome: finished.outcome,
      succeeded: total(finished, 'succeeded'),
      cached: total(finished, 'cached'),
      created: total(finished, 'created'),
      spent: formatUsd(finished.spent),
    },
    predictionsCreated: ledger.predictionsCreated,
    idempotencyKeys: Object.keys(ledger.byIdempotencyKey).length,
    duplicates: ledger.duplicates,
    creditsCharged: ledger.creditsCharged,
    manifestCredits: formatUsd(manifestCredits),
    requests: ledger.requests,
  };
  const checks = [
    check(
      `the campaign stops with ${outcome}, with a message`,
      stopped.outcome === outcome && Boolean(stopped.stopMessage),
      `outcome ${stopped.outcome}: ${stopped.stopMessage ?? '(no message)'}`,
    ),
    check(
      'it stops within a minute of the cause',
      stopMs !== null && stopMs <= STOP_WITHIN_MS,
      stopMs === null ? 'the cause was never seen' : `${(stopMs / 1000).toFixed(1)} s`,
    ),
    check(
      'the stop left work to do (it struck mid-run)',
      total(stopped, 'succeeded') > 0 && total(stopped, 'succeeded') < plan.jobs.length,
      `${total(stopped, 'succeeded')} of ${plan.jobs.length} done at the stop`,
    ),
    check('the re-run completes', finished.outcome === 'completed', `outcome ${finished.outcome}`),
    check('each job paid once', paid.ok, paid.detail),
    await filesCheck(plan),
    check(
      'money spent = manifest credits = what the two runs spent',
      charged === manifestCredits && charged === stopped.spent + finished.spent,
      `ledger $${ledger.creditsCharged}, manifest $${formatUsd(manifestCredits)}, runs $${formatUsd(stopped.spent)} + $${formatUsd(finished.spent)}`,
    ),
  ];
  return { checks, numbers };
}

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

    const started = Date.now();
    const handle = await start(stack, plan, ref);
    const result = resultOf(handle);
    let ended = false;
    void result.finally(() => {
      ended = true;
    });

    // Once a tenth of the files landed, the bytes a job takes are known: shrink the tmpfs so it
    // fills about halfway through the campaign.
    let shrunkTo = 0;
    let perJobBytes = 0;
    while (!ended && (await manifestLines(plan)) < plan.jobs.length / 10) await sleep(POLL_MS);
    if (!ended) {
      const now = await diskUse(out);
      perJobBytes = (now.used - before.used) / Math.max(1, await manifestLines(plan));
      shrunkTo = Math.ceil((now.used + perJobBytes * plan.jobs.length * 0.4) / 4096) * 4096;
      resizeTmpfs(out, `${Math.round(shrunkTo / 1024)}k`);
    }
    // The cause, seen from outside: the moment the folder has no room left for one more job.
    let fullAt: number | null = null;
    while (!ended && !overdue(fullAt)) {
      if (fullAt === null && shrunkTo > 0 && (await diskUse(out)).free < Math.max(8_192, perJobBytes)) {
        fullAt = Date.now();
      }
      await sleep(POLL_MS);
    }
    if (!ended) {
      const report = await hungReport(stack, plan, handle, 'disk-full', params, started, fullAt!);
      keep = false;
      return report;
    }
    const stopped = await result;
    const stoppedAt = Date.now();
    // And from inside: the first ENOSPC a worker logged (its log lines carry their time).
    const logged = await firstLogged(
      stack.workers.map((w) => w.log),
      /ENOSPC|EDQUOT/,
    );
    const causeAt = logged ?? fullAt;

    resizeTmpfs(out, '256m');
    const rerunStarted = Date.now();
    const finished = await resultOf(await start(stack, plan, await storePlan(plan)));
    const rerunMs = Date.now() - rerunStarted;

    const { checks, numbers } = await stopAndRerunChecks(
      stack,
      plan,
      'disk_full',
      stopped,
      causeAt === null ? null : stoppedAt - causeAt,
      finished,
    );
    checks.push(
      check(
        'the stop names the full disk',
        /ENOSPC|EDQUOT|disk full/i.test(stopped.stopMessage ?? ''),
        stopped.stopMessage ?? '(no message)',
      ),
    );
    const report = drillReport(
      'disk-full',
      params,
      Date.now() - started,
      {
        ...numbers,
        tmpfs: {
          bytesAtStart: before.used,
          bytesPerJob: Math.round(perJobBytes),
          shrunkTo,
          fullAfterMs: fullAt === null ? null : fullAt - started,
          firstEnospcLoggedAfterMs: logged === null ? null : logged - started,
        },
        firstRunMs: stoppedAt - started,
        rerunMs,
      },
      checks,
      stack.dir,
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
    const ref = await storePlan(plan);

    const started = Date.now();
    const handle = await start(stack, plan, ref);
    const result = resultOf(handle);
    let ended = false;
    void result.finally(() => {
      ended = true;
    });
    // The cause: a third of the predictions created with the campaign's key, then it is deleted.
    while (!ended && (await stack.ledger()).predictionsCreated < plan.jobs.length / 3) await sleep(POLL_MS);
    let deletedAt: number | null = null;
    let deleted: string[] = [];
    if (!ended) {
      deleted = await deleteKeysExcept(replacement, created.id);
      deletedAt = Date.now();
    }
    while (!ended && !overdue(deletedAt)) await sleep(POLL_MS);
    if (!ended) {
      const report = await hungReport(stack, plan, handle, 'key-deleted', params, started, deletedAt!);
      keep = false;
      return report;
    }
    const stopped = await result;
    const stoppedAt = Date.now();

    // The fix: workers get the new key (the old ones hold the deleted one).
    await Promise.all(stack.workers.map((w) => w.kill('SIGTERM')));
    worker = spawnWorker(stack, created.key, join(stack.dir, 'logs', 'worker-new-key.log'));
    const rerunStarted = Date.now();
    const finished = await resultOf(await start(stack, plan, await storePlan(plan)));
    const rerunMs = Date.now() - rerunStarted;

    const { checks, numbers } = await stopAndRerunChecks(
      stack,
      plan,
      'authentication_failed',
      stopped,
      deletedAt === null ? null : stoppedAt - deletedAt,
      finished,
    );
    const report = drillReport(
      'key-deleted',
      params,
      Date.now() - started,
      {
        ...numbers,
        keysDeleted: deleted.length,
        deletedAfterMs: deletedAt === null ? null : deletedAt - started,
        firstRunMs: stoppedAt - started,
        rerunMs,
      },
      checks,
      stack.dir,
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

/** Past the goal (a minute after the cause) and a grace period: the stop is not coming. */
function overdue(causeAt: number | null): boolean {
  return causeAt !== null && Date.now() - causeAt > STOP_WITHIN_MS + 15_000;
}

/**
 * The campaign did not stop: say so with what it was doing (the workers' failures, counted by
 * message), terminate it and leave the re-run out. The folder is removed: the numbers are here.
 */
async function hungReport(
  stack: Stack,
  plan: Plan,
  handle: WorkflowHandle<typeof campaignWorkflow>,
  drill: string,
  params: Record<string, unknown>,
  started: number,
  causeAt: number,
): Promise<DrillReport> {
  const waitedMs = Date.now() - causeAt;
  await handle.terminate(`drill ${drill}: no stop ${Math.round(waitedMs / 1000)} s after the cause`);
  const ledger = await stack.ledger();
  const failures = new Map<string, number>();
  for (const worker of stack.workers) {
    for (const line of (await readFile(worker.log, 'utf8').catch(() => '')).split('\n')) {
      const error = /^\s+error: (.*)$/.exec(line)?.[1]?.replace(/\d+/g, 'N');
      if (error) failures.set(error, (failures.get(error) ?? 0) + 1);
    }
  }
  return drillReport(
    drill,
    params,
    Date.now() - started,
    {
      causeAfterMs: causeAt - started,
      manifestLines: await manifestLines(plan),
      predictionsCreated: ledger.predictionsCreated,
      creditsCharged: ledger.creditsCharged,
      workerFailures: Object.fromEntries([...failures].sort((a, b) => b[1] - a[1])),
    },
    [
      check(
        'the campaign stops within a minute of the cause',
        false,
        `still running ${(waitedMs / 1000).toFixed(1)} s after it (terminated); the re-run was not tried`,
      ),
    ],
    stack.dir,
  );
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

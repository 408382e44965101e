/**
 * One throughput workload, measured twice in the same run on fresh emulators with the same
 * settings: mediaflow (dev server, or a local cluster, + `mediaflow worker` processes) and then
 * the hand-written baseline (bench/baseline.ts in a process of its own). Every process is
 * measured from /proc, the Temporal server's included.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { keyFingerprint } from '../../control/governor.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
import type { BaselineResult } from '../baseline.ts';
import { readManifest } from '../drills/verify.ts';
import { runCampaign } from '../lib/campaign.ts';
import type { Cluster } from '../lib/cluster.ts';
import { historyProfile } from '../lib/history-profile.ts';
import { machineCpuTicks, ProcSampler, readProcSample, treeCpuSeconds } from '../lib/proc-stats.ts';
import { replayCampaign } from '../lib/replay.ts';
import { MIB, paceOf, requestStats, round } from '../lib/report.ts';
import { type Stack, startStack } from '../lib/stack.ts';
import { threadCpu, threadCpuSince } from '../lib/thread-cpu.ts';
import type { Workload } from './workloads.ts';

const BASELINE_SCRIPT = fileURLToPath(new URL('../baseline.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Every run is abandoned after this many times its physical bound. `BENCH_TIMEOUT_OVER_BOUND`
 * lengthens it for a small profiling run on a loaded machine (where only CPU per job is judged).
 */
const TIMEOUT_OVER_BOUND = Number(process.env.BENCH_TIMEOUT_OVER_BOUND ?? 5);

export interface MeasureOptions {
  /** The outputs go to a bucket of a versitygw the stack starts (`--output s3://…`). */
  s3?: boolean;
  /** Run on this local cluster instead of a dev server. */
  cluster?: Cluster;
  /** `mediaflow worker` processes (default 1); `worker` reports the first, `workers` them all. */
  workers?: number;
}

export async function measureMediaflow(
  workload: Workload,
  { s3 = false, cluster, workers = 1 }: MeasureOptions = {},
) {
  const stack = await startStack({ emulator: workload.emulator, workers, s3, cluster });
  try {
    // The clock starts with every worker polling: start-up (tsx, webpack bundling of the
    // workflow code) is a one-off, not throughput. Its memory peak is reported on its own.
    await Promise.all(stack.workers.map((w) => w.polling()));
    const worker = stack.workers[0]!;
    const peakRssAtReadyMib = round(readProcSample(worker.pid)!.peakRssBytes / MIB, 1);
    const serverCpuAtStart = serverCpu(stack, cluster);
    const besideAtStart = cpuBeside(stack);
    const threadsAtStart = threadCpu(worker.pid);
    // Through the key's rate governor, as `run` starts campaigns (docs/engine.md): alone on the
    // key, the campaign's share is the whole limit.
    const run = await runCampaign(stack, specOf(workload), {
      timeoutMs: workload.boundSeconds * TIMEOUT_OVER_BOUND * 1000,
      abandon: true,
      governor: keyFingerprint(stack.emulatorUrl, stack.apiKey),
      ...(s3 ? { output: `${stack.bucketUrl}/bench` } : {}),
    });
    // Before the reads below, which the server answers too.
    const serverCpuAtEnd = serverCpu(stack, cluster);
    const besideAtEnd = cpuBeside(stack);
    const threads = threadCpuSince(threadsAtStart, threadCpu(worker.pid));
    const [ledger, history, manifest, replay] = await Promise.all([
      stack.ledger(),
      historyProfile(stack.client, run.workflowId),
      readManifest(run.plan.outputDir, stack.storeOf(run.plan.outputDir)).then((read) => read.entries),
      replayCampaign(stack.client, run.workflowId),
    ]);
    await Promise.all(stack.workers.map((w) => w.kill('SIGTERM'))); // each samples /proc a last time first
    const counts = run.progress.steps.reduce(
      (sum, step) => ({ succeeded: sum.succeeded + step.succeeded, failed: sum.failed + step.failed }),
      { succeeded: 0, failed: 0 },
    );
    const started = run.progress.startedAt;
    // Per job counts what ended: an abandoned run is judged on the jobs it got through.
    const jobsDone = Math.max(1, run.abandoned ? counts.succeeded + counts.failed : workload.jobs);
    // The profiler's own thread (BENCH_WORKER_NODE_OPTIONS=--cpu-prof) is not the campaign's.
    const campaignCpuSeconds = Object.entries(threads)
      .filter(([name]) => !name.startsWith('v8:Prof'))
      .reduce((n, [, s]) => n + s, 0);
    const heartbeats = Object.values(history.activities).reduce((n, a) => n + a.heartbeatsEstimated, 0);
    return {
      wallS: round(run.wallMs / 1000, 2),
      outcome: run.abandoned ? 'abandoned' : run.progress.outcome,
      ...counts,
      workflowRuns: run.progress.runs,
      requests: requestStats(ledger, workload.jobs),
      predictionsCreated: ledger.predictionsCreated,
      history: {
        ...history,
        eventsPerJob: round(history.events / jobsDone, 2),
        // Heartbeats leave no event (history-profile.ts estimates them); the runner sends no queries.
        heartbeatsEstimated: heartbeats,
        actionsPerJob: round((history.actionsTotal + heartbeats) / jobsDone, 2),
      },
      worker: {
        peakRssMib: round(worker.peakRssBytes() / MIB, 1),
        // MB of 10⁶ bytes, the issues' unit (their goals are judged in it, bench/run.ts).
        peakRssMb: round(worker.peakRssBytes() / 1e6, 1),
        peakRssAtReadyMib,
        // Seconds from the campaign's start to the moment the peak was set (compare with wallS).
        peakRssSetAtS: round((worker.peakRssAt() - started) / 1000, 1),
        cpuSeconds: worker.cpuSeconds(),
        // The campaign's CPU by thread (thread-cpu.ts): activities on main, workflows on their own.
        threadCpuSeconds: threads,
        // From the first poll to the campaign's end (start-up excluded), per job that ended.
        campaignCpuSeconds: round(campaignCpuSeconds, 2),
        cpuMsPerJob: round((campaignCpuSeconds * 1000) / jobsDone, 2),
      },
      workers: stack.workers.map((w) => ({
        peakRssMb: round(w.peakRssBytes() / 1e6, 1),
        cpuSeconds: w.cpuSeconds(),
      })),
      // The campaign's share of the server's CPU: the Temporal processes (and PostgreSQL on a cluster).
      server: {
        ...serverCpuUse(serverCpuAtStart, serverCpuAtEnd, jobsDone),
        cpuMsPerEvent: round(
          ((serverCpuAtEnd.temporal - serverCpuAtStart.temporal) * 1000) / history.events,
          3,
        ),
      },
      // What else the cores did meanwhile: the service's side, and how busy the machine was.
      beside: cpuBesideUse(besideAtStart, besideAtEnd, jobsDone),
      replay,
      pace: paceOf(manifest.map((entry) => Date.parse(entry.created_at) - started)),
      perJob: perJobTimes(manifest),
    };
  } finally {
    await stack.stop();
  }
}

/** CPU seconds so far of the Temporal server's processes, and of PostgreSQL's on a cluster. */
function serverCpu(stack: Stack, cluster: Cluster | undefined) {
  return {
    temporal: stack.temporalPids().reduce((n, pid) => n + (readProcSample(pid)?.cpuSeconds ?? 0), 0),
    postgres: cluster ? treeCpuSeconds(cluster.postgres.pid()) : 0,
  };
}

function serverCpuUse(start: ReturnType<typeof serverCpu>, end: ReturnType<typeof serverCpu>, jobs: number) {
  const temporal = end.temporal - start.temporal;
  const postgres = end.postgres - start.postgres;
  return {
    temporalCpuSeconds: round(temporal, 2),
    postgresCpuSeconds: round(postgres, 2),
    cpuMsPerJob: round(((temporal + postgres) * 1000) / jobs, 2),
  };
}

/**
 * CPU so far of the emulator and of the whole machine (clock ticks): on 2 cores the service's
 * emulator shares the machine with the engine, and a machine busy all along is the limit,
 * whichever process used it.
 */
function cpuBeside(stack: Stack) {
  return { emulator: readProcSample(stack.emulatorPid)?.cpuSeconds ?? 0, machine: machineCpuTicks() };
}

function cpuBesideUse(start: ReturnType<typeof cpuBeside>, end: ReturnType<typeof cpuBeside>, jobs: number) {
  const emulatorCpuSeconds = round(end.emulator - start.emulator, 2);
  return {
    emulatorCpuSeconds,
    emulatorCpuMsPerJob: round((emulatorCpuSeconds * 1000) / jobs, 2),
    // Of every core's time, the share spent busy: 1 is every core busy all along.
    machineBusyShare: round(
      (end.machine.busy - start.machine.busy) / (end.machine.total - start.machine.total),
      3,
    ),
  };
}

export async function measureBaseline(workload: Workload) {
  // A stack with no worker: a fresh emulator with the same settings (the idle dev server sleeps).
  const stack = await startStack({ emulator: workload.emulator, workers: 0 });
  try {
    const specFile = join(stack.dir, 'baseline-spec.yaml');
    await writeFile(specFile, specOf(workload));
    const besideAtStart = cpuBeside(stack);
    const { result, peakRssBytes, cpuSeconds } = await runBaselineProcess(stack, specFile, workload);
    const besideAtEnd = cpuBeside(stack);
    const ledger = await stack.ledger();
    return {
      wallS: round(result.wallMs / 1000, 2),
      succeeded: result.succeeded,
      failed: result.failed,
      firstError: result.firstError,
      requests: requestStats(ledger, workload.jobs),
      downloadsPerJob: round(result.requests.download / workload.jobs, 3),
      predictionsCreated: ledger.predictionsCreated,
      process: { peakRssMib: round(peakRssBytes / MIB, 1), cpuSeconds },
      beside: cpuBesideUse(besideAtStart, besideAtEnd, workload.jobs),
      pace: paceOf(result.createdAtMs),
    };
  } finally {
    await stack.stop();
  }
}

async function runBaselineProcess(stack: Stack, specFile: string, workload: Workload) {
  const timeoutS = Math.ceil(workload.boundSeconds * TIMEOUT_OVER_BOUND);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', BASELINE_SCRIPT, specFile, '--timeout-s', String(timeoutS)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, MEDIAFLOW_API_URL: stack.emulatorUrl, MEDIAFLOW_API_KEY: stack.apiKey },
    },
  );
  const sampler = new ProcSampler(child.pid!);
  // The script gives up at its own deadline; this one only guards against a hang.
  const guard = setTimeout(() => child.kill('SIGKILL'), (timeoutS + 60) * 1000);
  try {
    let line: string | undefined;
    for await (const text of createInterface({ input: child.stdout })) {
      sampler.sample();
      line = text;
    }
    if (!line) throw new Error('the baseline printed no result (see its stderr above)');
    const result = JSON.parse(line) as BaselineResult;
    return { result, peakRssBytes: sampler.last.peakRssBytes, cpuSeconds: sampler.last.cpuSeconds };
  } finally {
    clearTimeout(guard);
    sampler.stop();
  }
}

const READY_TIMEOUT_MS = 120_000;

/** The worker prints one line once it polls its task queue (cli/commands/worker.ts). */
export async function workerReady(stack: Stack): Promise<void> {
  const log = join(stack.dir, 'logs', 'worker-1.log');
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const text = await readFile(log, 'utf8').catch(() => '');
    if (text.includes('mediaflow worker polling')) return;
    await sleep(200);
  }
  throw new Error(`the worker did not start polling within ${READY_TIMEOUT_MS} ms (see ${log})`);
}

function specOf(workload: Workload): string {
  return workload.spec.replace('{{OUT}}', 'out');
}

/** Mean milliseconds per job: prediction created → file recorded, and the download within it. */
function perJobTimes(manifest: readonly ManifestEntry[]) {
  const mean = (f: (e: ManifestEntry) => number) =>
    manifest.length === 0 ? 0 : Math.round(manifest.reduce((n, e) => n + f(e), 0) / manifest.length);
  return {
    createdToRecordedMs: mean((e) => Date.parse(e.finished_at) - Date.parse(e.created_at)),
    downloadMs: mean((e) => e.download_ms),
  };
}

/**
 * `cluster` (issue 23): the production topology broken on purpose. A chained campaign into S3 on
 * the local Temporal cluster (bench/lib/cluster.ts: PostgreSQL, one process per service, the
 * files docker-compose.yml mounts) with three workers, each in an empty working directory of its
 * own, sharing only the cluster and the bucket. While it runs: three worker SIGKILLs, one rolling
 * SIGTERM restart of every worker, history and matching each SIGKILLed and started, PostgreSQL
 * restarted, the S3 server restarted. Then verify.ts's witnesses, the histories scanned for
 * nondeterminism, the campaign listed by `temporal workflow list --query`, and the wall time set
 * against the same campaign on the dev server (run first, undisturbed, unless its wall is given).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCampaign } from '../lib/campaign.ts';
import { startCluster } from '../lib/cluster.ts';
import { type Stack, type StackOptions, startStack } from '../lib/stack.ts';
import { type ChaosAction, type ChaosEvent, chaosReport, chaosSchedule, runChaos } from './chaos.ts';
import { listedByQuery, runProfile, workflowTaskFailures } from './cluster-checks.ts';
import { crashEmulator, pairsDrillParams } from './crash.ts';
import { type Check, check, type DrillReport } from './report.ts';
import { bucketOnlyCheck } from './scale-out.ts';
import { PAIR_USD, pairsSpec } from './specs.ts';
import { verifyOutcome } from './verify.ts';

/** The goal: the cluster, broken eight times, within this factor of the undisturbed dev server. */
export const CLUSTER_OVER_DEV_SERVER = 1.3;

/** What the drill breaks, and how often. */
export const CLUSTER_CHAOS: Partial<Record<ChaosAction, number>> = {
  'kill-one-worker': 3,
  'rolling-restart': 1,
  'kill-history': 1,
  'kill-matching': 1,
  'restart-postgres': 1,
  'restart-s3': 1,
};

export interface ClusterDrillOptions {
  /** Planned jobs (two per pair), default 2,000. */
  jobs?: number;
  workers?: number;
  seed?: number;
  latencyMs?: { I4: number; V6: number };
  /** Default 40, less for small runs (see below). */
  concurrency?: number;
  /** The same campaign's wall on the dev server, measured before: then it is not run again. */
  devServerWallMs?: number;
  timeoutMs?: number;
}

export async function clusterDrill(opts: ClusterDrillOptions = {}): Promise<DrillReport> {
  const common = pairsDrillParams(opts, 2_000);
  const { pairs } = common;
  const params = {
    ...common,
    workers: opts.workers ?? 3,
    // A small run (a smoke test) keeps fewer predictions in flight, so it lasts long enough for
    // all eight breaks to land mid-run (a rolling restart alone takes three worker start-ups).
    concurrency: opts.concurrency ?? Math.max(1, Math.min(40, Math.floor(pairs / 25))),
    chaos: CLUSTER_CHAOS,
  };
  const timeoutMs = opts.timeoutMs ?? 30 * 60_000;
  const campaign = {
    spec: pairsSpec({ pairs, concurrency: params.concurrency, budgetUsd: Math.ceil(pairs * PAIR_USD * 1.2) }),
    timeoutMs,
  };
  const stackOptions: StackOptions = { s3: true, workers: params.workers, emulator: crashEmulator(params) };

  const devServer = opts.devServerWallMs === undefined ? await devServerRun(stackOptions, campaign) : null;
  const devServerWallMs = devServer?.wallMs ?? opts.devServerWallMs!;
  // The cluster's folder is ours (not startCluster's temp dir), so a failed drill can keep its logs.
  const clusterDir = await mkdtemp(join(tmpdir(), 'mediaflow-cluster-drill-'));
  await chmod(clusterDir, 0o755); // the postgres user writes its data in it (cluster-postgres.ts)
  const cluster = await startCluster({ dir: clusterDir });
  let keep = true; // a drill that throws keeps its folders for inspection
  let stack: Stack | undefined;
  try {
    stack = await startStack({ ...stackOptions, cluster });
    const events = chaosSchedule(
      { kills: 0, restarts: 0, predictions: params.jobs },
      params.seed,
      CLUSTER_CHAOS,
    );
    await everyWorkerPolling(stack);
    let finished = false;
    const running = runCampaign(stack, campaign.spec, {
      timeoutMs,
      output: `${stack.bucketUrl}/cluster`,
    }).finally(() => {
      finished = true;
    });
    const [run, fired] = await Promise.all([running, runChaos(stack, events, () => finished, timeoutMs)]);
    const outcome = await verifyOutcome(stack, run);
    const taskFailures = await workflowTaskFailures(stack.client, run.workflowId);
    const query = `MediaflowCampaign="${run.plan.campaign}" AND MediaflowOutcome="completed"`;
    const listed = await listedByQuery(cluster, query, run.workflowId);
    const checks = [
      chaosCheck(fired),
      rollingCheck(fired),
      check('campaign completed', run.progress.outcome === 'completed', `outcome ${run.progress.outcome}`),
      await bucketOnlyCheck(stack, run),
      ...outcome.checks,
      check(
        'no workflow task failed for nondeterminism during the run',
        taskFailures.nondeterministic === 0,
        `${taskFailures.failed} workflow task failures in the histories, ${taskFailures.nondeterministic} for nondeterminism`,
      ),
      check(
        'the campaign is found by `temporal workflow list --query` on its search attributes',
        listed.length === 1 && listed[0] === run.workflowId,
        `${query}: ${listed.length} listed${listed.length > 0 ? ` (${listed.join(', ')})` : ''}`,
      ),
      check(
        `wall ≤ ${CLUSTER_OVER_DEV_SERVER} × the same campaign on the dev server`,
        run.wallMs <= CLUSTER_OVER_DEV_SERVER * devServerWallMs,
        `cluster ${(run.wallMs / 1000).toFixed(1)} s with every break, dev server ${(devServerWallMs / 1000).toFixed(1)} s undisturbed${opts.devServerWallMs === undefined ? '' : ' (given)'}: ${(run.wallMs / devServerWallMs).toFixed(2)}×`,
      ),
    ];
    const numbers = {
      ...outcome.numbers,
      devServerWallMs,
      workflowTaskFailures: taskFailures,
      profiles: { devServer, cluster: await runProfile(stack, run) },
    };
    const report = chaosReport('cluster', params, run.wallMs, numbers, fired, checks, stack);
    keep = !report.ok;
    return { ...report, dir: keep ? `${stack.dir} and ${clusterDir}` : stack.dir };
  } finally {
    await stack?.stop({ keepDir: keep });
    await cluster.stop();
    if (!keep) await rm(clusterDir, { recursive: true, force: true });
  }
}

/** The same campaign, stack and workers on the dev server, nothing broken: the run to compare with. */
async function devServerRun(stackOptions: StackOptions, campaign: { spec: string; timeoutMs: number }) {
  const stack = await startStack(stackOptions);
  try {
    await everyWorkerPolling(stack);
    const run = await runCampaign(stack, campaign.spec, {
      timeoutMs: campaign.timeoutMs,
      output: `${stack.bucketUrl}/dev-server`,
    });
    if (run.progress.outcome !== 'completed') {
      throw new Error(`the dev server run ended ${run.progress.outcome}: no wall to compare with`);
    }
    return await runProfile(stack, run);
  } finally {
    await stack.stop();
  }
}

/**
 * Both walls start with every worker polling: start-up (tsx, bundling the workflow code) is the
 * same on either server and, on a busy machine, varies more than the difference measured.
 */
async function everyWorkerPolling(stack: Stack): Promise<void> {
  await Promise.all(stack.workers.map((w) => w.polling()));
}

function chaosCheck(fired: readonly ChaosEvent[]): Check {
  const counts = Object.entries(CLUSTER_CHAOS).map(([action, planned]) => {
    const done = fired.filter((e) => e.action === action && e.firedAtMs !== undefined).length;
    return { action, planned, done };
  });
  return check(
    'chaos applied: every planned break happened mid-run',
    counts.every((c) => c.done === c.planned),
    counts.map((c) => `${c.done}/${c.planned} ${c.action}`).join(', '),
  );
}

function rollingCheck(fired: readonly ChaosEvent[]): Check {
  const drained = fired.flatMap((e) => e.drained ?? []);
  const replaced = drained.reduce((n, d) => n + d.replaced, 0);
  const exitedZero = drained.reduce((n, d) => n + d.exitedZero, 0);
  return check(
    'rolling restart: every worker replaced, each old one drained on SIGTERM and exited 0',
    drained.length > 0 && replaced > 0 && exitedZero === replaced,
    `${replaced} workers replaced one at a time, ${exitedZero} exited 0 after SIGTERM`,
  );
}

/**
 * `upgrade` (issue 19): a chained, reviewed campaign started by the REAL previous release (commit
 * e004ccc, engine 1, which knows nothing of generations), its worker and CLI run from a checkout
 * of that commit. Two hero stills are approved with the old CLI; once both approved heroes' clips
 * are created upstream, the old worker (and the old `run`) are SIGKILLed with predictions in
 * flight, as replacing the binary leaves them. Then this release's `run` and worker go on: `run`
 * must say it continued the campaign from its records, the third hero is approved with the new
 * CLI, and the campaign completes with every output, the approvals kept, one prediction per job
 * and spend = records = ledger (upgrade-checks.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { CampaignProgress } from '../../contract/progress.ts';
import { campaignHandle } from '../../control/campaign.ts';
import { campaignView, finalView } from '../../control/campaign-view.ts';
import { formatProblem, planCampaign } from '../../plan/index.ts';
import type { Plan } from '../../plan/types.ts';
import { readClaims } from '../../records/claims.ts';
import { readDecisions } from '../../records/decisions.ts';
import { Manifest, type ManifestEntry } from '../../records/manifest.ts';
import { type CliProcess, startCli } from '../lib/cli-process.ts';
import { checkoutRelease } from '../lib/release.ts';
import { type Stack, startStack } from '../lib/stack.ts';
import { type DrillReport, drillReport } from './report.ts';
import { HERO_PAIR_USD, HEROES, PAIR_USD, reviewedPairsSpec } from './specs.ts';
import { upgradeChecks } from './upgrade-checks.ts';
import { readManifest } from './verify.ts';

/** The release before engine generations: the commit issue 19 started from. */
export const PREVIOUS_RELEASE = 'e004ccc';
const BIN = fileURLToPath(new URL('../../bin/mediaflow.js', import.meta.url));

export interface UpgradeDrillOptions {
  /** Planned jobs: three reviewed hero pairs plus unreviewed pairs (default 300). */
  jobs?: number;
  seed?: number;
  /** The older release's commit (default PREVIOUS_RELEASE). */
  release?: string;
  concurrency?: number;
  timeoutMs?: number;
}

export async function upgradeDrill(opts: UpgradeDrillOptions = {}): Promise<DrillReport> {
  const pairs = Math.max(1, Math.ceil(((opts.jobs ?? 300) - 2 * HEROES.length) / 2));
  const params = {
    jobs: 2 * (pairs + HEROES.length),
    release: opts.release ?? PREVIOUS_RELEASE,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    // Hero clips take longest, so the approved heroes' clips are still running at the stop.
    latencyMs: { I1: 1_500, I4: 1_500, V4: 8_000, V6: 4_000 },
    concurrency: opts.concurrency ?? 20,
  };
  const budgetUsd = Math.ceil((pairs * PAIR_USD + HEROES.length * HERO_PAIR_USD) * 1.2);
  const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
  const loadAtStart = os.loadavg()[0];
  const started = Date.now();
  const release = await checkoutRelease(params.release);
  // The checkout goes with the drill, whether the stack starts or not.
  const stack = await startStack({
    workers: 0,
    emulator: {
      latencyMs: params.latencyMs,
      jitter: false,
      seed: params.seed,
      limits: { createsPerMinute: 6_000, requestsPerMinute: 100_000, maxInFlight: 200 },
    },
  }).catch(async (error: unknown) => {
    await release.remove();
    throw error;
  });
  const processes: CliProcess[] = [];
  let keep = true; // a drill that throws keeps its folder for inspection
  try {
    const folder = join(stack.dir, 'runs', 'upgrade');
    await mkdir(folder, { recursive: true });
    const specFile = join(folder, 'spec.yaml');
    await writeFile(specFile, reviewedPairsSpec({ pairs, concurrency: params.concurrency, budgetUsd }));
    const planned = await planCampaign(specFile);
    if (!planned.ok) throw new Error(planned.problems.map(formatProblem).join('\n'));
    const plan = planned.plan;
    const cli = (bin: string, name: string, args: string[]) => {
      const child = startCli(bin, args, {
        cwd: folder,
        env: envOf(stack),
        log: join(stack.dir, 'logs', `${name}.log`),
      });
      processes.push(child);
      return child;
    };
    const queue = ['--task-queue', stack.queueName];
    const heroKeys = plan.jobs.filter((job) => job.step === 'hero').map((job) => job.key);

    // The older release: its worker, then its `run` on the same queue name.
    const oldWorker = cli(release.bin, 'old-worker', ['worker', ...queue]);
    const oldRun = cli(release.bin, 'old-run', ['run', specFile, '--no-worker', ...queue]);
    const handle = campaignHandle(stack.client, plan.campaign);
    const oldStart = await until(timeoutMs, async () => {
      if (!oldRun.running()) throw new Error(`the old run exited:\n${oldRun.output()}`);
      const described = await handle.describe().catch(() => null);
      return described?.status.name === 'RUNNING' ? described : null;
    });
    // A dead old worker would leave every wait below to its timeout: say so at once instead.
    const oldAlive = () => {
      if (!oldWorker.running()) throw new Error(`the old worker exited:\n${oldWorker.output()}`);
    };
    await until(timeoutMs, async () => {
      oldAlive();
      return heroOf(await progressOf(stack, plan))?.awaiting_review === 3 ? true : null;
    });
    // Two approvals with the old CLI: one by name, one by key.
    const oldApprovals = [
      await cli(release.bin, 'old-approve-1', ['approve', plan.campaign, `hero-${HEROES[0]}`]).exited,
      await cli(release.bin, 'old-approve-2', ['approve', plan.campaign, heroKeys[1]!]).exited,
    ];
    // Both approved heroes' clips created upstream: stop the older release there, mid-run.
    await until(timeoutMs, async () => {
      oldAlive();
      return ((await stack.ledger()).byModel.V4 ?? 0) >= 2 || null;
    });
    await Promise.all([oldWorker.kill('SIGKILL'), oldRun.kill('SIGKILL')]);
    const oldPhaseMs = Date.now() - started;
    const atStop = {
      ledger: await stack.ledger(),
      recorded: await recordedJobs(plan),
      listed: (await readManifest(plan.outputDir)).entries.length,
      decisions: await readDecisions(plan.outputDir, plan.campaign),
      claims: await readClaims(stack.storeOf(plan.outputDir), plan.campaign),
    };

    // This release: its worker and its `run`, which must continue the campaign from its records.
    const upgradeStarted = Date.now();
    await stack.startWorker();
    const newRun = cli(BIN, 'new-run', ['run', specFile, '--no-worker', ...queue]);
    await newRun.waitFor(/continued from its records/, 120_000);
    const askedAgain = { maxAwaiting: 0, approvedWhenAsked: -1 };
    const newStart = await until(timeoutMs, async () => {
      const described = await handle.describe();
      if (described.runId === oldStart.runId) return null;
      const hero = heroOf(await progressOf(stack, plan));
      askedAgain.maxAwaiting = Math.max(askedAgain.maxAwaiting, hero?.awaiting_review ?? 0);
      if (hero?.awaiting_review !== 1) return null;
      askedAgain.approvedWhenAsked = hero.approved ?? 0;
      return described;
    });
    const newApproval = await cli(BIN, 'new-approve', ['approve', plan.campaign, `hero-${HEROES[2]}`]).exited;
    const timer = new AbortController();
    const expired = sleep(timeoutMs, 'timeout' as const, { signal: timer.signal }).catch(
      () => 'timeout' as const,
    );
    const newRunCode = await Promise.race([newRun.exited, expired]);
    timer.abort();
    if (newRunCode === 'timeout') throw new Error(`the new run did not end within ${timeoutMs} ms`);
    const final = await finalView(handle);
    const upgradePhaseMs = Date.now() - upgradeStarted;

    const { checks, numbers } = await upgradeChecks(stack, plan, {
      oldEngine: release.engine,
      oldStart,
      newStart,
      oldApprovals,
      atStop,
      askedAgain,
      newApproval,
      newRunCode,
      newRunOutput: newRun.output(),
      final: final.progress,
    });
    const report = drillReport(
      'upgrade',
      params,
      Date.now() - started,
      {
        ...numbers,
        oldPhaseMs,
        upgradePhaseMs,
        loadAverage: { atStart: loadAtStart, atEnd: os.loadavg()[0] },
      },
      checks,
      stack.dir,
    );
    keep = !report.ok;
    return report;
  } finally {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
    await stack.stop({ keepDir: keep });
    await release.remove();
  }
}

/**
 * The jobs recorded, by their records (the truth, records/manifest.ts): a worker killed between a
 * job's record and its line in manifest.jsonl leaves a recorded job unlisted.
 */
async function recordedJobs(plan: Plan): Promise<ManifestEntry[]> {
  const manifest = await Manifest.open(plan.outputDir);
  const entries = await Promise.all(plan.jobs.map((job) => manifest.get(job.key)));
  return entries.filter((entry) => entry !== undefined);
}

/** What both releases' commands need to reach the stack: secrets through the environment only. */
function envOf(stack: Stack): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    MEDIAFLOW_API_URL: stack.emulatorUrl,
    MEDIAFLOW_API_KEY: stack.apiKey,
  };
}

/** The latest run's published progress (its memo), or null before it published any. */
async function progressOf(stack: Stack, plan: Plan): Promise<CampaignProgress | null> {
  const view = await campaignView(stack.client, campaignHandle(stack.client, plan.campaign)).catch(
    () => null,
  );
  return view?.progress ?? null;
}

function heroOf(progress: CampaignProgress | null) {
  return progress?.steps.find((step) => step.id === 'hero');
}

/** Polls `ready` every 100 ms until it returns something other than null. */
async function until<T>(timeoutMs: number, ready: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await ready();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`drill upgrade: a wait ran past ${timeoutMs} ms`);
    await sleep(100);
  }
}

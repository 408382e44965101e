/**
 * `field` (issue 21): stills feeding videos against the emulator with the faults users of real
 * generation services meet, seeded: prompt refusals, flagged outputs, an outage (every /v1
 * request 503), links that expire 30 s after they are issued, short and stalling bodies, two
 * worker SIGKILLs, and the output disk filled to the last byte at 80 % (then freed and the same
 * campaign run again). The goals (field-checks.ts): one named outcome per job, no hang, no
 * duplicate, the same money everywhere, and a wall close to the fault-free run's.
 *
 * The disk part mounts a tmpfs over the output folder, so it needs root (as the suite and CI
 * run); otherwise it is skipped and the report says why. The fault-free run shares the stack
 * (its own campaign name, so its keys never meet the drill's); its money is subtracted.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServiceClient } from '../../api/client/index.ts';
import { parseUsd } from '../../api/money.ts';
import { preflight } from '../../cli/preflight.ts';
import type { Faults } from '../../emulator/index.ts';
import { formatProblem, planCampaign } from '../../plan/index.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import { runCampaign } from '../lib/campaign.ts';
import { type Stack, startStack } from '../lib/stack.ts';
import { chaosReport, chaosSchedule, runChaos } from './chaos.ts';
import { type FieldRun, fieldChecks } from './field-checks.ts';
import { playOutage, watchStatus } from './field-watch.ts';
import type { DrillReport } from './report.ts';
import { PAIR_USD, pairsSpec } from './specs.ts';
import { launch, manifestLines } from './stop-drill.ts';
import { diskUse, fillToTheLastByte, mountTmpfs, resizeTmpfs, unmountTmpfs } from './stop-kit.ts';

export interface FieldDrillOptions {
  /** Planned jobs (a still and its clip per pair), default 5,000. */
  jobs?: number;
  seed?: number;
  /** How long the service is down, default 3 minutes. */
  outageMs?: number;
  /** Worker SIGKILLs, default 2. */
  kills?: number;
  /** Fill the output disk at 80 % (default true; needs root for the tmpfs). */
  disk?: boolean;
  /** How long after issue the expiring links (5 %) expire, default 30 s. */
  linkTtlMs?: number;
  latencyMs?: { I4: number; V6: number };
  concurrency?: number;
  /** The workers' `MEDIAFLOW_DOWNLOAD_RATE_WINDOW_S` (how soon a stall is seen); default the engine's 20. */
  stallWindowS?: number;
  /** The fault-free run's wall, measured before: it is then not run. */
  faultFreeWallMs?: number;
  /** Run the fault-free campaign to judge the wall against (default true). */
  baseline?: boolean;
  timeoutMs?: number;
}

/** Issue 21's mix, per request, per download or per prediction (media/links.ts). */
export function fieldFaults(linkTtlMs: number): Partial<Faults> {
  return {
    refusePromptRate: 0.02,
    flagOutputRate: 0.01,
    linkTtlMs,
    linkTtlShare: 0.05,
    truncateDownloadRate: 0.01,
    trickleDownloadRate: 0.01,
  };
}

/** Where the outage and the full disk strike: at 40 % of the predictions created, at 80 % of the files. */
const OUTAGE_AT = 0.4;
const DISK_AT = 0.8;
const TMPFS_SIZE = '8g';

export async function fieldDrill(opts: FieldDrillOptions = {}): Promise<DrillReport> {
  const pairs = Math.ceil((opts.jobs ?? 5_000) / 2);
  const params = {
    pairs,
    jobs: pairs * 2,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    outageMs: opts.outageMs ?? 180_000,
    kills: opts.kills ?? 2,
    disk: opts.disk ?? true,
    linkTtlMs: opts.linkTtlMs ?? 30_000,
    latencyMs: opts.latencyMs ?? { I4: 1_500, V6: 4_000 },
    concurrency: opts.concurrency ?? 40,
    stallWindowS: opts.stallWindowS ?? 20,
    faults: fieldFaults(opts.linkTtlMs ?? 30_000),
  };
  const diskSkipped = !params.disk
    ? 'not asked for (disk: false)'
    : process.getuid?.() !== 0
      ? 'needs root to mount a tmpfs over the output folder'
      : null;
  if (diskSkipped && params.disk) console.error(`drill field: the full-disk part is skipped: ${diskSkipped}`);
  const timeoutMs = opts.timeoutMs ?? 60 * 60_000;
  const stack = await startStack({
    emulator: {
      latencyMs: params.latencyMs,
      seed: params.seed,
      limits: { createsPerMinute: 6_000, requestsPerMinute: 100_000, maxInFlight: 200 },
      // The fault-free run, the drill's and the run after the disk is freed: the default $1,000
      // would refuse the full size's first run ($1,575) at preflight.
      credits: `${Math.ceil(pairs * PAIR_USD * 3)}.00`,
    },
    workerEnv: { MEDIAFLOW_DOWNLOAD_RATE_WINDOW_S: String(params.stallWindowS) },
  });
  const spec = (name: string) =>
    pairsSpec({
      pairs,
      concurrency: params.concurrency,
      budgetUsd: Math.ceil(pairs * PAIR_USD * 1.3),
    }).replace('campaign: drill-pairs', `campaign: ${name}`);
  const out = join(stack.dir, 'field', 'out');
  let mounted = false;
  let keep = true;
  // Ends the chaos and the outage loops: at the end, or when a run throws (then they must not
  // outlive the stack and hide its error behind their own "fetch failed").
  let allDone = false;
  try {
    // A campaign started before any worker polls shows no progress for as long as the start takes
    // (minutes on a loaded machine): that is the machine, not the engine. Past polling()'s bound
    // it starts anyway, and status names the missing worker.
    await stack.workers[0]?.polling().catch(() => {});
    const faultFreeWallMs =
      opts.faultFreeWallMs ??
      (opts.baseline === false
        ? null
        : (await runCampaign(stack, spec('field-baseline'), { timeoutMs })).wallMs);
    const before = await stack.ledger();
    const chargedBefore = parseUsd(before.creditsCharged);
    // The breaks fire at counts of the drill's own predictions: the fault-free run's are in the
    // ledger too (counted from 0, every break fired at once, the outage during the preflight).
    const createdBefore = before.predictionsCreated;

    await mkdir(out, { recursive: true });
    if (!diskSkipped) {
      mountTmpfs(out, TMPFS_SIZE);
      mounted = true;
    }
    const plan = await planned(join(stack.dir, 'field'), spec('field'));
    await stack.setFaults(params.faults);
    const finished = () => allDone;
    const chaos = runChaos(
      stack,
      chaosSchedule({ kills: params.kills, restarts: 0, predictions: params.jobs }, params.seed).map(
        (event) => ({ ...event, atCreated: event.atCreated + createdBefore }),
      ),
      finished,
      timeoutMs,
    );
    const outage = playOutage(
      stack,
      {
        atCreated: createdBefore + Math.round(params.jobs * OUTAGE_AT),
        durationMs: params.outageMs,
        after: { serverErrorRate: 0 },
      },
      finished,
    );
    // Awaited below; a run that throws first leaves them to end on their own, their errors moot.
    for (const loop of [chaos, outage]) loop.catch(() => {});

    const runs: FieldRun[] = [];
    const first = await followRun(stack, plan, timeoutMs, (ended) =>
      diskSkipped
        ? Promise.resolve(null)
        : fillDiskAt(plan, out, Math.ceil(plan.jobs.length * DISK_AT), ended),
    );
    runs.push(first.run);
    let disk: Record<string, unknown> = diskSkipped ? { skipped: diskSkipped } : { filledAt: first.extra };
    if (!diskSkipped && first.run.progress.outcome === 'disk_full') {
      // The user's fix: free the space, then `run` the same spec again.
      await rm(join(out, 'filler'), { force: true });
      resizeTmpfs(out, TMPFS_SIZE);
      disk = {
        ...disk,
        stoppedWith: first.run.progress.outcome,
        stopMessage: first.run.progress.stopMessage,
      };
      runs.push((await followRun(stack, plan, timeoutMs, async () => null)).run);
    }
    allDone = true;
    const [fired, played] = await Promise.all([chaos, outage]);
    const checked = await fieldChecks(stack, plan, runs, {
      chargedBefore,
      createdBefore,
      outage: played,
      outageMs: params.outageMs,
      faultFreeWallMs,
      kills: fired.filter((e) => e.firedAtMs !== undefined).length,
      plannedKills: params.kills,
      diskSkipped,
      diskFullAt: first.extra?.at ?? null,
    });
    const wallMs = runs.reduce((n, r) => n + r.wallMs, 0);
    const report = chaosReport(
      'field',
      params,
      wallMs,
      { ...checked.numbers, disk, faultFreeWallMs },
      fired,
      checked.checks,
      stack,
    );
    keep = !report.ok;
    return report;
  } finally {
    allDone = true;
    if (mounted) unmountTmpfs(out);
    await stack.stop({ keepDir: keep });
  }
}

/** The spec written into `folder` and planned (each run preflights and stores it: followRun). */
async function planned(folder: string, specYaml: string): Promise<Plan> {
  const file = join(folder, 'spec.yaml');
  await writeFile(file, specYaml);
  const result = await planCampaign(file);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.plan;
}

/**
 * One `run` of the campaign to its end while `status` is read, with `during` alongside (the
 * disk filler), whose answer is handed back.
 */
async function followRun<T>(
  stack: Stack,
  plan: Plan,
  timeoutMs: number,
  during: (ended: () => boolean) => Promise<T>,
): Promise<{ run: FieldRun; extra: T }> {
  const service = createServiceClient({ baseUrl: stack.emulatorUrl, apiKey: stack.apiKey });
  const store = stack.storeOf(plan.outputDir);
  const ref = await preflight(service, plan, store)
    .then((report) => storePlan(plan, report.servicePrices, store))
    .finally(() => service.close());
  const started = Date.now();
  const running = await launch(stack, plan, ref, timeoutMs);
  const [progress, samples, extra] = await Promise.all([
    running.result,
    watchStatus(stack, running.handle, running.ended),
    during(running.ended),
  ]);
  const endedAt = Date.now();
  return {
    run: { workflowId: running.handle.workflowId, progress, samples, wallMs: endedAt - started, endedAt },
    extra,
  };
}

/**
 * Once `files` outputs are in the manifest, the tmpfs is shrunk to what it holds and a filler
 * takes it to the last byte: outputs, records and claims all meet ENOSPC at once.
 */
async function fillDiskAt(
  plan: Plan,
  out: string,
  files: number,
  ended: () => boolean,
): Promise<{ files: number; usedBytes: number; freeAfter: number; at: number } | null> {
  while ((await manifestLines(plan)) < files) {
    if (ended()) return null;
    await sleep(200);
  }
  const before = await diskUse(out);
  resizeTmpfs(out, `${Math.ceil((before.used + (1 << 20)) / 1024)}k`);
  fillToTheLastByte(join(out, 'filler'));
  const at = Date.now();
  return {
    files: await manifestLines(plan),
    usedBytes: before.used,
    freeAfter: (await diskUse(out)).free,
    at,
  };
}

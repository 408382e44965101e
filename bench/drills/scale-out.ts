/**
 * `scale-out` (issue 13): a chained campaign into S3 (versitygw) on three workers, each started in
 * an empty working directory of its own, so they share nothing but Temporal and the bucket. Three
 * workers are SIGKILLed (one at a time, each replaced, in a new empty directory) and the S3 server
 * is restarted once. Then: every output object present with a matching sha256, one record per job,
 * 0 duplicate predictions (ledger), spend = records = workflow (verify.ts), and no worker wrote a
 * byte into its working directory.
 */
import { readdir } from 'node:fs/promises';
import { type CampaignRun, runCampaign } from '../lib/campaign.ts';
import { type Stack, startStack } from '../lib/stack.ts';
import { chaosReport, chaosSchedule, runChaos } from './chaos.ts';
import { crashEmulator, pairsDrillParams } from './crash.ts';
import { type Check, check, type DrillReport } from './report.ts';
import { PAIR_USD, pairsSpec } from './specs.ts';
import { verifyOutcome } from './verify.ts';

export interface ScaleOutDrillOptions {
  /** Planned jobs (two per pair), default 500. */
  jobs?: number;
  workers?: number;
  kills?: number;
  s3Restarts?: number;
  seed?: number;
  latencyMs?: { I4: number; V6: number };
  concurrency?: number;
  timeoutMs?: number;
}

export async function scaleOutDrill(opts: ScaleOutDrillOptions = {}): Promise<DrillReport> {
  const params = {
    ...pairsDrillParams(opts, 500),
    workers: opts.workers ?? 3,
    kills: opts.kills ?? 3,
    s3Restarts: opts.s3Restarts ?? 1,
    concurrency: opts.concurrency ?? 40,
  };
  const { pairs } = params;
  const budgetUsd = Math.ceil(pairs * PAIR_USD * 1.2);
  const stack = await startStack({
    s3: true,
    workers: params.workers,
    emulator: crashEmulator(params),
  });
  let keep = true; // a drill that throws keeps its folder for inspection
  try {
    const events = chaosSchedule({ kills: 0, restarts: 0, predictions: params.jobs }, params.seed, {
      'kill-one-worker': params.kills,
      'restart-s3': params.s3Restarts,
    });
    let finished = false;
    const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
    const spec = pairsSpec({ pairs, concurrency: params.concurrency, budgetUsd });
    const running = runCampaign(stack, spec, { timeoutMs, output: `${stack.bucketUrl}/scale-out` }).finally(
      () => {
        finished = true;
      },
    );
    const [run, fired] = await Promise.all([running, runChaos(stack, events, () => finished, timeoutMs)]);
    const outcome = await verifyOutcome(stack, run);
    const count = (action: string) =>
      fired.filter((e) => e.action === action && e.firedAtMs !== undefined).length;
    const checks = [
      check(
        'chaos applied: every planned worker SIGKILL and S3 restart happened mid-run',
        count('kill-one-worker') === params.kills && count('restart-s3') === params.s3Restarts,
        `${count('kill-one-worker')}/${params.kills} worker SIGKILLs, ${count('restart-s3')}/${params.s3Restarts} S3 restarts`,
      ),
      check('campaign completed', run.progress.outcome === 'completed', `outcome ${run.progress.outcome}`),
      await bucketOnlyCheck(stack, run),
      ...outcome.checks,
    ];
    const report = chaosReport('scale-out', params, run.wallMs, outcome.numbers, fired, checks, stack);
    keep = !report.ok;
    return report;
  } finally {
    await stack.stop({ keepDir: keep });
  }
}

/** Workers that share only the bucket: nothing in their working directories, the outputs in S3. */
export async function bucketOnlyCheck(stack: Stack, run: CampaignRun): Promise<Check> {
  const written = (await Promise.all(stack.workerDirs.map((dir) => readdir(dir)))).flat();
  return check(
    'outputs and records in the bucket only: no worker wrote into its working directory',
    written.length === 0 && run.plan.outputDir.startsWith('s3://'),
    `${stack.workerDirs.length} workers, ${written.length} entries in their directories; output ${run.plan.outputDir}`,
  );
}

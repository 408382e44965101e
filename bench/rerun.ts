/**
 * `npm run bench -- rerun-2k | rerun-100k [--jobs N]`: a finished campaign run again unchanged, as
 * a user types it. The first run goes through the stack's worker on a fast emulator (it is not
 * what is measured); then `mediaflow run <spec> --no-worker --json` is timed from its spawn to its
 * exit. Goals (issue 22): no prediction created, no workflow run started, the wall within its bound.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { campaignHandle } from '../control/campaign.ts';
import { runCampaign } from './lib/campaign.ts';
import { startCli } from './lib/cli-process.ts';
import { treeCpuSeconds } from './lib/proc-stats.ts';
import { round, type Verdict, verdict } from './lib/report.ts';
import { startStack } from './lib/stack.ts';
import { emulatorFor, imageSweep } from './throughput/workloads.ts';

const BIN = fileURLToPath(new URL('../bin/mediaflow.js', import.meta.url));

export interface RerunWorkload {
  readonly name: string;
  readonly jobs: number;
  /** Matrix of the image sweep: rows × columns = jobs. */
  readonly rows: number;
  readonly columns: number;
  /** Goal: the re-run's wall, spawn to exit, in seconds. */
  readonly wallS: number;
}

export const RERUNS: Readonly<Record<string, RerunWorkload>> = {
  'rerun-2k': { name: 'rerun-2k', jobs: 2_000, rows: 40, columns: 50, wallS: 5 },
  'rerun-100k': { name: 'rerun-100k', jobs: 100_000, rows: 250, columns: 400, wallS: 30 },
};

/** A smaller sweep of the same shape (`--jobs N`), to check the harness: never recorded. */
export function resized(workload: RerunWorkload, jobs: number): RerunWorkload {
  const columns = Math.min(workload.columns, jobs);
  return { ...workload, jobs: columns * Math.ceil(jobs / columns), rows: Math.ceil(jobs / columns), columns };
}

/** Fast enough that the first run is over in about a minute for 2,000 jobs; it is not measured. */
const FAST = emulatorFor(200, 400, 200);

export async function measureRerun(workload: RerunWorkload) {
  const stack = await startStack({ emulator: FAST });
  try {
    await Promise.all(stack.workers.map((w) => w.polling()));
    const spec = imageSweep(`bench-${workload.name}`, workload.rows, workload.columns, 400);
    const first = await runCampaign(stack, spec, { timeoutMs: 60 * 60_000 });
    const folder = join(stack.dir, 'runs', 'run-1'); // runCampaign's folder of its first run
    const handle = campaignHandle(stack.client, first.plan.campaign);
    const firstRun = (await handle.describe()).runId;
    const createdBefore = (await stack.ledger()).predictionsCreated;

    const started = Date.now();
    const cli = startCli(
      BIN,
      ['run', 'spec.yaml', '--no-worker', '--task-queue', stack.queueName, '--json'],
      {
        cwd: folder,
        log: join(stack.dir, 'logs', 'rerun.log'),
        env: {
          TEMPORAL_ADDRESS: stack.temporalAddress,
          TEMPORAL_NAMESPACE: stack.client.options.namespace,
          MEDIAFLOW_API_URL: stack.emulatorUrl,
          MEDIAFLOW_API_KEY: stack.apiKey,
          MEDIAFLOW_STATE_DIR: join(stack.dir, 'cli-state'),
        },
      },
    );
    // Its CPU seconds (the shell, node and what they start), read until it exits: on a loaded
    // machine the wall mostly measures the others' work, the CPU what the re-run itself costs.
    let cpuSeconds = 0;
    const sampling = setInterval(() => {
      cpuSeconds = Math.max(cpuSeconds, treeCpuSeconds(cli.pid));
    }, 100);
    const code = await cli.exited.finally(() => clearInterval(sampling));
    const wallS = round((Date.now() - started) / 1000, 2);
    const created = (await stack.ledger()).predictionsCreated - createdBefore;
    const workflowStarted = (await handle.describe()).runId !== firstRun;
    const summary = lastJson(cli.output());
    const verdicts: Verdict[] = [
      verdict('exit code', code ?? 128, 0),
      verdict('predictions created by the re-run', created, 0),
      verdict('workflow runs started by the re-run', workflowStarted ? 1 : 0, 0),
      verdict('re-run wall, spawn to exit', wallS, workload.wallS, ' s'),
    ];
    return {
      workload: { ...workload, emulator: FAST },
      firstRun: { wallS: round(first.wallMs / 1000, 2), outcome: first.progress.outcome },
      rerun: { wallS, cpuSeconds: round(cpuSeconds, 2), exitCode: code, created, workflowStarted, summary },
      verdicts,
    };
  } finally {
    await stack.stop();
  }
}

/** The `--json` summary: the last thing on stdout, a pretty-printed object. */
function lastJson(output: string): unknown {
  const start = output.lastIndexOf('\n{\n');
  const text = start >= 0 ? output.slice(start + 1) : output.slice(output.indexOf('{'));
  const end = text.lastIndexOf('}');
  try {
    return JSON.parse(text.slice(0, end + 1));
  } catch {
    return null;
  }
}

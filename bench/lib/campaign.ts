/**
 * Running a campaign on a Stack the way `mediaflow run --no-worker` does (plan, preflight, store
 * the plan, start the workflow, follow its progress, sweep temporary files), and reading back how big its Temporal
 * history grew.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServiceClient } from '../../api/client/index.ts';
import { preflight } from '../../cli/preflight.ts';
import { CampaignProgress } from '../../contract/progress.ts';
import { startOrAttach } from '../../control/campaign.ts';
import { campaignView } from '../../control/campaign-view.ts';
import { formatProblem, planCampaign } from '../../plan/index.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import type { Stack } from './stack.ts';

const PROGRESS_EVERY_MS = 500;
const DEFAULT_TIMEOUT_MS = 30 * 60_000;

export interface CampaignRun {
  plan: Plan;
  workflowId: string;
  /** The workflow's result: the final progress. */
  progress: CampaignProgress;
  /** From the workflow start request to its result. */
  wallMs: number;
  /** The run was abandoned at its timeout (RunCampaignOptions.abandon): `progress` is its last memo. */
  abandoned: boolean;
}

export interface RunCampaignOptions {
  /** The output location instead of the spec's, as `run --output` gives it (e.g. s3://bucket/prefix). */
  output?: string;
  /** Start even when the plan costs more than its budget, as `run --allow-over-budget` does. */
  allowOverBudget?: boolean;
  onProgress?: (p: CampaignProgress) => void;
  /** Default 30 minutes; the run is abandoned (not canceled) with an error after it. */
  timeoutMs?: number;
  /**
   * At the timeout, terminate the workflow and return its last published progress (`abandoned`)
   * instead of throwing: a benchmark still reports how far a slow engine got.
   */
  abandon?: boolean;
  /** The API key's fingerprint: the campaign shares the key through its rate governor, as `run` does. */
  governor?: string;
}

let runs = 0;

/**
 * Each run gets its own folder (so outputs and manifests of earlier runs are never reused) and a
 * campaign name made unique in the stack, then runs to its end on the stack's workers.
 */
export async function runCampaign(
  stack: Stack,
  specYaml: string,
  opts: RunCampaignOptions = {},
): Promise<CampaignRun> {
  const id = `run-${++runs}`;
  const folder = join(stack.dir, 'runs', id);
  await mkdir(folder, { recursive: true });
  const specFile = join(folder, 'spec.yaml');
  await writeFile(specFile, specYaml.replace(/^campaign: *(\S+) *$/m, `campaign: $1-${id}`));
  const planned = await planCampaign(specFile);
  if (!planned.ok) throw new Error(planned.problems.map(formatProblem).join('\n'));
  const plan = opts.output
    ? { ...planned.plan, outputDir: `${opts.output}/${planned.plan.campaign}` }
    : planned.plan;
  const store = stack.storeOf(plan.outputDir);

  const service = createServiceClient({ baseUrl: stack.emulatorUrl, apiKey: stack.apiKey });
  let ref: Awaited<ReturnType<typeof storePlan>>;
  try {
    const report = await preflight(service, plan, store);
    if (report.refusals.length > 0 && !opts.allowOverBudget) {
      throw new Error(`preflight refused ${plan.campaign}: ${report.refusals.join('; ')}`);
    }
    ref = await storePlan(plan, report.servicePrices, store);
  } finally {
    await service.close();
  }

  const started = Date.now();
  const { handle } = await startOrAttach(stack.client, plan, ref, stack.taskQueue, opts.governor);
  type Outcome = { progress: CampaignProgress } | { error: unknown };
  const settled = handle.result().then(
    (progress): Outcome => ({ progress }),
    (error: unknown): Outcome => ({ error }),
  );
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let outcome: Outcome | null = null;
  while (outcome === null && Date.now() - started < timeoutMs) {
    if (opts.onProgress) {
      // The memo, never a query (docs/engine.md); unanswered while the server restarts.
      const view = await campaignView(stack.client, handle).catch(() => null);
      if (view) opts.onProgress(view.progress);
    }
    outcome = await Promise.race([settled, sleep(PROGRESS_EVERY_MS, null)]);
    // Nobody left to run it: fail now with the reason rather than at the timeout.
    const crashed = stack.workers.find((w) => w.crashed());
    if (outcome === null && crashed && !stack.workers.some((w) => w.alive())) {
      throw new Error(`${plan.campaign}: every worker is gone, one exited by itself (see ${crashed.log})`);
    }
  }
  const wallMs = Date.now() - started;
  if (outcome === null && opts.abandon) {
    const progress = await abandonRun(handle, settled);
    return { plan, workflowId: handle.workflowId, progress, wallMs, abandoned: true };
  }
  if (outcome === null) throw new Error(`${plan.campaign} did not finish within ${timeoutMs} ms`);
  if ('error' in outcome) throw outcome.error;
  opts.onProgress?.(outcome.progress);
  return { plan, workflowId: handle.workflowId, progress: outcome.progress, wallMs, abandoned: false };
}

/**
 * Ends a run the benchmark gave up on: its memo first (the progress it had published), then a
 * terminate, and the pending result() is awaited before anyone closes the connection. Leaving that
 * long poll open is what crashed the bench with `Channel has been shut down` when the stack
 * stopped under it.
 */
async function abandonRun(
  handle: Awaited<ReturnType<typeof startOrAttach>>['handle'],
  settled: Promise<unknown>,
): Promise<CampaignProgress> {
  const { memo } = await handle.describe();
  const published = CampaignProgress.safeParse(memo?.progress);
  await handle.terminate('abandoned by the benchmark at its timeout').catch(() => {});
  await settled;
  if (!published.success) throw new Error(`${handle.workflowId}: abandoned before it published any progress`);
  return published.data;
}

export interface HistoryStats {
  /** Workflow runs (continue-as-new count + 1). */
  runs: number;
  /** Events over all runs. */
  events: number;
  /** Events of the longest run. */
  largestRun: number;
}

/**
 * Walks the chain of runs backwards from the latest (each run's first event names the run it
 * continues), so it needs no visibility index and never misses a run that was just closed.
 */
export async function historyStats(stack: Stack, workflowId: string): Promise<HistoryStats> {
  const stats: HistoryStats = { runs: 0, events: 0, largestRun: 0 };
  let runId: string | undefined;
  do {
    const history = await stack.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    stats.runs++;
    stats.events += events.length;
    stats.largestRun = Math.max(stats.largestRun, events.length);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId && stats.runs < 100_000);
  return stats;
}

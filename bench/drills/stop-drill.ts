/**
 * The skeleton the stop drills share (stops.ts): a stack, the stills campaign, the run to its
 * named stop (or the hung report when none comes), the re-run once the cause is fixed, and the
 * checks of the stop, the re-run and the money.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { CampaignProgress, PlanRef } from '../../contract/campaign.ts';
import { startOrAttach } from '../../control/campaign.ts';
import { formatProblem, planCampaign } from '../../plan/index.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import { type Stack, startStack } from '../lib/stack.ts';
import { check, type DrillReport, drillReport } from './report.ts';
import { stillsSpec } from './specs.ts';
import { STOP_WITHIN_MS, stopAndRerunChecks } from './stop-checks.ts';

export interface StopDrillOptions {
  /** I4 stills, default 300. */
  jobs?: number;
  seed?: number;
  /** Latency of a still (ms, with the emulator's jitter), default 800. */
  latencyMs?: number;
  concurrency?: number;
}

const RUN_TIMEOUT_MS = 5 * 60_000;
const POLL_MS = 100;

export function paramsOf(opts: StopDrillOptions) {
  return {
    jobs: opts.jobs ?? 300,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    latencyMs: opts.latencyMs ?? 800,
    concurrency: opts.concurrency ?? 20,
  };
}

export async function stackFor(params: ReturnType<typeof paramsOf>): Promise<Stack> {
  return startStack({
    emulator: {
      latencyMs: { I4: params.latencyMs },
      seed: params.seed,
      limits: { createsPerMinute: 6_000, requestsPerMinute: 100_000, maxInFlight: 200 },
    },
  });
}

/** The spec written into `folder` and planned (its output folder is `folder/out`). */
export async function planIn(folder: string, params: ReturnType<typeof paramsOf>): Promise<Plan> {
  await mkdir(join(folder, 'out'), { recursive: true });
  const file = join(folder, 'spec.yaml');
  await writeFile(file, stillsSpec({ jobs: params.jobs, concurrency: params.concurrency }));
  const planned = await planCampaign(file);
  if (!planned.ok) throw new Error(planned.problems.map(formatProblem).join('\n'));
  return planned.plan;
}

/** Starts (or re-starts, once the last run closed) the campaign, as `run --no-worker` does. */
export async function start(
  stack: Stack,
  plan: Plan,
  ref: PlanRef,
): Promise<WorkflowHandle<typeof campaignWorkflow>> {
  return (await startOrAttach(stack.client, plan, ref, stack.taskQueue)).handle;
}

/**
 * The run's result, or an error once `timeoutMs` passed. The timer goes with the result: left
 * running, it rejected minutes after a run that had ended, and the unhandled rejection ended the
 * full-size field drill in the middle of its second run.
 */
export async function resultOf(
  handle: WorkflowHandle<typeof campaignWorkflow>,
  timeoutMs = RUN_TIMEOUT_MS,
): Promise<CampaignProgress> {
  const timer = new AbortController();
  const timeout = sleep(timeoutMs, undefined, { signal: timer.signal }).then(() => {
    throw new Error(`${handle.workflowId} did not end within ${timeoutMs} ms`);
  });
  timeout.catch(() => {}); // aborted once the result is in
  try {
    return await Promise.race([handle.result(), timeout]);
  } finally {
    timer.abort();
  }
}

export async function manifestLines(plan: Plan): Promise<number> {
  const text = await readFile(join(plan.outputDir, 'manifest.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).length;
}

/** A campaign under way: its handle, its result, and whether it has ended yet. */
export interface Running {
  readonly handle: WorkflowHandle<typeof campaignWorkflow>;
  readonly result: Promise<CampaignProgress>;
  ended(): boolean;
}

export async function launch(
  stack: Stack,
  plan: Plan,
  ref: PlanRef,
  timeoutMs = RUN_TIMEOUT_MS,
): Promise<Running> {
  const handle = await start(stack, plan, ref);
  const result = resultOf(handle, timeoutMs);
  let ended = false;
  void result.finally(() => {
    ended = true;
  });
  return { handle, result, ended: () => ended };
}

export interface Drill {
  readonly name: string;
  /** The named outcome the cause must end the campaign with. */
  readonly outcome: CampaignProgress['outcome'];
  readonly params: Record<string, unknown>;
  readonly started: number;
}

export type StopSeen =
  | { readonly stopped: CampaignProgress; readonly stoppedAt: number; readonly causeAt: number | null }
  | { readonly hung: DrillReport };

/**
 * Waits for the campaign to stop, polling `causeSeen` (the moment the cause is visible from
 * outside, null until then); past the goal it terminates the run and reports it hung.
 */
export async function awaitStop(
  stack: Stack,
  plan: Plan,
  running: Running,
  drill: Drill,
  causeSeen: () => Promise<number | null>,
): Promise<StopSeen> {
  let causeAt: number | null = null;
  while (!running.ended() && !overdue(causeAt)) {
    causeAt ??= await causeSeen();
    await sleep(POLL_MS);
  }
  if (!running.ended()) return { hung: await hungReport(stack, plan, running.handle, drill, causeAt!) };
  return { stopped: await running.result, stoppedAt: Date.now(), causeAt };
}

/** The same spec run again once the cause is fixed, then every check, in the drill's report. */
export async function rerunAndReport(
  stack: Stack,
  plan: Plan,
  drill: Drill,
  stopped: CampaignProgress,
  stopMs: number | null,
  numbers: Record<string, unknown>,
): Promise<DrillReport> {
  const rerunStarted = Date.now();
  const finished = await resultOf(await start(stack, plan, await storePlan(plan)));
  const rerunMs = Date.now() - rerunStarted;
  const checked = await stopAndRerunChecks(stack, plan, drill.outcome, stopped, stopMs, finished);
  return drillReport(
    drill.name,
    drill.params,
    Date.now() - drill.started,
    { ...checked.numbers, ...numbers, rerunMs },
    checked.checks,
    stack.dir,
  );
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
  { name: drill, params, started }: Drill,
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

/**
 * Crashes at random moments: workers SIGKILLed (and new ones started) or restarted in a rolling
 * SIGTERM drain, the Temporal server restarted, and on a local cluster one service killed, or
 * PostgreSQL restarted, each when the emulator's ledger has seen a random number of predictions created.
 * The moments come from a seeded generator, so a failing drill can be replayed with its seed.
 * Progress is read from the emulator, which no crash touches, not from the workflow.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { streamFor } from '../../emulator/random.ts';
import type { Stack, WorkerProcess } from '../lib/stack.ts';
import { type Check, type DrillReport, drillReport } from './report.ts';

/**
 * `kill-worker`: every worker SIGKILLed, one started; `kill-one-worker`: one of several SIGKILLed
 * and replaced (workers on many machines, one lost); `rolling-restart`: every worker replaced one
 * at a time, as a deploy does (a new one polling first, then the old one SIGTERMed and drained);
 * `restart-temporal`, `restart-s3`, `restart-postgres`: the server stopped and started again on
 * its own data; `kill-history`, `kill-matching`: that cluster service SIGKILLed, then started.
 */
export type ChaosAction =
  | 'kill-worker'
  | 'kill-one-worker'
  | 'rolling-restart'
  | 'restart-temporal'
  | 'restart-s3'
  | 'restart-postgres'
  | 'kill-history'
  | 'kill-matching';

/**
 * How long a SIGTERMed worker may drain before it is SIGKILLed: beyond the worker's own grace and
 * force periods (30 s + 5 s, worker/worker-process.ts), so only the worker decides when it exits.
 */
export const DRAIN_WAIT_MS = 45_000;

export interface ChaosEvent {
  action: ChaosAction;
  /** Fires once this many predictions were created. */
  atCreated: number;
  /** Filled when it fired: ms since the chaos started, and how long the action took. */
  firedAtMs?: number;
  tookMs?: number;
  /** A rolling restart's outcome: workers replaced, and how many of the old ones exited 0. */
  drained?: { replaced: number; exitedZero: number };
}

/**
 * Moments spread over 5–85 % of the predictions the run will create: that span is cut into one
 * slice per event and each event lands at a random point of its slice (in a random order of
 * actions), so two crashes never fall on the same instant.
 */
export function chaosSchedule(
  { kills, restarts, predictions }: { kills: number; restarts: number; predictions: number },
  seed: number,
  more: Partial<Record<ChaosAction, number>> = {},
): ChaosEvent[] {
  const random = streamFor(seed, 'chaos');
  const actions: ChaosAction[] = [
    ...Array<ChaosAction>(kills).fill('kill-worker'),
    ...Array<ChaosAction>(restarts).fill('restart-temporal'),
    ...Object.entries(more).flatMap(([action, count]) =>
      Array<ChaosAction>(count).fill(action as ChaosAction),
    ),
  ];
  for (let i = actions.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [actions[i], actions[j]] = [actions[j]!, actions[i]!];
  }
  const slice = 0.8 / actions.length;
  return actions.map((action, i) => ({
    action,
    atCreated: Math.max(1, Math.round(predictions * (0.05 + slice * (i + random())))),
  }));
}

const POLL_MS = 100;

/**
 * Applies the events in order until all fired, `finished()` turns true, or `timeoutMs` passes.
 * Returns the events, each stamped when it fired.
 */
export async function runChaos(
  stack: Stack,
  events: ChaosEvent[],
  finished: () => boolean,
  timeoutMs: number,
): Promise<ChaosEvent[]> {
  const started = Date.now();
  let createdAtLastEvent = -1;
  for (const event of events) {
    // Also wait for progress since the previous event: a crash must hit a system that is working
    // again, not a worker still starting up.
    while (!finished() && Date.now() - started < timeoutMs) {
      const { predictionsCreated } = await stack.ledger();
      if (predictionsCreated >= event.atCreated && predictionsCreated > createdAtLastEvent) {
        createdAtLastEvent = predictionsCreated;
        break;
      }
      await sleep(POLL_MS);
    }
    if (finished() || Date.now() - started >= timeoutMs) break;
    event.firedAtMs = Date.now() - started;
    await apply(stack, event);
    event.tookMs = Date.now() - started - event.firedAtMs;
  }
  return events;
}

async function apply(stack: Stack, event: ChaosEvent): Promise<void> {
  const alive = stack.workers.filter((w) => w.alive());
  switch (event.action) {
    case 'kill-worker':
      await Promise.all(alive.map((w) => w.kill('SIGKILL')));
      await stack.startWorker();
      return;
    case 'kill-one-worker':
      await alive[0]?.kill('SIGKILL'); // the longest-lived: it holds the most work
      await stack.startWorker();
      return;
    case 'rolling-restart':
      event.drained = await rollingRestart(stack, alive);
      return;
    case 'restart-s3':
      return stack.restartS3();
    case 'restart-temporal':
      return stack.restartTemporal();
    case 'restart-postgres':
      return clusterOf(stack).postgres.restart();
    case 'kill-history':
    case 'kill-matching': {
      const service = event.action === 'kill-history' ? 'history' : 'matching';
      await clusterOf(stack).kill(service, 'SIGKILL');
      return clusterOf(stack).start(service);
    }
  }
}

/** One worker at a time: its replacement polls before it is SIGTERMed, so capacity never drops. */
async function rollingRestart(stack: Stack, old: readonly WorkerProcess[]) {
  let exitedZero = 0;
  for (const worker of old) {
    await (await stack.startWorker()).polling();
    await worker.kill('SIGTERM', DRAIN_WAIT_MS);
    if (worker.exit()?.code === 0) exitedZero++;
  }
  return { replaced: old.length, exitedZero };
}

function clusterOf(stack: Stack) {
  if (!stack.cluster)
    throw new Error('this chaos action needs a stack on a local cluster (StackOptions.cluster)');
  return stack.cluster;
}

/** A chaos drill's report (crash, scale-out): the faults it fired, and each worker's peak memory and CPU. */
export function chaosReport(
  name: string,
  params: Record<string, unknown>,
  wallMs: number,
  numbers: Record<string, unknown>,
  fired: readonly ChaosEvent[],
  checks: Check[],
  stack: Stack,
): DrillReport {
  const workers = stack.workers.map((w) => ({
    peakRssMb: Math.round(w.peakRssBytes() / 2 ** 20),
    cpuSeconds: w.cpuSeconds(),
  }));
  return drillReport(name, params, wallMs, { ...numbers, chaos: fired, workers }, checks, stack.dir);
}

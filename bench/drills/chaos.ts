/**
 * Crashes at random moments: the worker SIGKILLed (and a new one started) and the Temporal server
 * restarted, each when the emulator's ledger has seen a random number of predictions created.
 * The moments come from a seeded generator, so a failing drill can be replayed with its seed.
 * Progress is read from the emulator, which no crash touches, not from the workflow.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { streamFor } from '../../emulator/random.ts';
import type { Stack } from '../lib/stack.ts';
import { type Check, type DrillReport, drillReport } from './report.ts';

/**
 * `kill-worker`: every worker SIGKILLed, one started; `kill-one-worker`: one of several SIGKILLed
 * and replaced (workers on many machines, one lost); `restart-temporal`, `restart-s3`: the server
 * stopped and started again on its own data.
 */
export type ChaosAction = 'kill-worker' | 'kill-one-worker' | 'restart-temporal' | 'restart-s3';

export interface ChaosEvent {
  action: ChaosAction;
  /** Fires once this many predictions were created. */
  atCreated: number;
  /** Filled when it fired: ms since the chaos started, and how long the action took. */
  firedAtMs?: number;
  tookMs?: number;
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
    if (event.action === 'kill-worker') {
      const alive = stack.workers.filter((w) => w.alive());
      await Promise.all(alive.map((w) => w.kill('SIGKILL')));
      await stack.startWorker();
    } else if (event.action === 'kill-one-worker') {
      const alive = stack.workers.filter((w) => w.alive());
      await alive[0]?.kill('SIGKILL'); // the longest-lived: it holds the most work
      await stack.startWorker();
    } else if (event.action === 'restart-s3') {
      await stack.restartS3();
    } else {
      await stack.restartTemporal();
    }
    event.tookMs = Date.now() - started - event.firedAtMs;
  }
  return events;
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

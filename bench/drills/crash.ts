/**
 * `crash` and `crash-no-idempotency`: a chained campaign run through injected service faults
 * while its worker is SIGKILLed and the Temporal server restarted at random moments. Nothing may
 * be lost, paid twice, or paid above the budget (verify.ts). Without idempotency the emulator
 * creates a new prediction for every create it receives, so only the engine's reconciliation of
 * "maybe created" requests keeps duplicates at 0.
 */
import type { EmulatorOptions, Faults } from '../../emulator/index.ts';
import { runCampaign } from '../lib/campaign.ts';
import { startStack } from '../lib/stack.ts';
import { chaosReport, chaosSchedule, runChaos } from './chaos.ts';
import { check, type DrillReport } from './report.ts';
import { PAIR_USD, pairsSpec } from './specs.ts';
import { verifyOutcome } from './verify.ts';

export interface CrashDrillOptions {
  /** Planned jobs (two per pair), default 500. */
  jobs?: number;
  kills?: number;
  restarts?: number;
  ignoreIdempotency?: boolean;
  seed?: number;
  /** Simulated latency of a still and of a clip. */
  latencyMs?: { I4: number; V6: number };
  concurrency?: number;
  timeoutMs?: number;
}

/** Issue 5's fault mix: 5 % 5xx, 2 % failed predictions, 1 % dropped or truncated downloads. */
export const CRASH_FAULTS: Partial<Faults> = {
  serverErrorRate: 0.05,
  failRate: 0.02,
  truncateDownloadRate: 0.01,
  dropConnectionRate: 0.01,
};

/** The emulator of the crash drills (crash, scale-out): their latencies and seed, with CRASH_FAULTS. */
export function crashEmulator(params: {
  latencyMs: EmulatorOptions['latencyMs'];
  seed: number;
  ignoreIdempotency?: boolean;
}): EmulatorOptions {
  return {
    latencyMs: params.latencyMs,
    seed: params.seed,
    faults: CRASH_FAULTS,
    ...(params.ignoreIdempotency === undefined ? {} : { ignoreIdempotency: params.ignoreIdempotency }),
    limits: { createsPerMinute: 6_000, requestsPerMinute: 100_000, maxInFlight: 200 },
  };
}

/**
 * What every drill on the pairs campaign shares (crash, scale-out, cluster): its size in pairs
 * and jobs, the seed (random unless given, and reported so a run can be replayed), the latencies
 * and CRASH_FAULTS.
 */
export function pairsDrillParams(
  opts: { jobs?: number; seed?: number; latencyMs?: { I4: number; V6: number } },
  defaultJobs: number,
) {
  const pairs = Math.ceil((opts.jobs ?? defaultJobs) / 2);
  return {
    pairs,
    jobs: pairs * 2,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    latencyMs: opts.latencyMs ?? { I4: 1_500, V6: 4_000 },
    faults: CRASH_FAULTS,
  };
}

export async function crashDrill(opts: CrashDrillOptions = {}): Promise<DrillReport> {
  const params = {
    ...pairsDrillParams(opts, 500),
    kills: opts.kills ?? 5,
    restarts: opts.restarts ?? 1,
    ignoreIdempotency: opts.ignoreIdempotency ?? false,
    concurrency: opts.concurrency ?? 40,
  };
  const { pairs } = params;
  // Budget above the plan's price, so the run can finish, yet checked: spending never passes it.
  const budgetUsd = Math.ceil(pairs * PAIR_USD * 1.2);
  const stack = await startStack({ emulator: crashEmulator(params) });
  let keep = true; // a drill that throws keeps its folder for inspection
  try {
    const events = chaosSchedule(
      { kills: params.kills, restarts: params.restarts, predictions: params.jobs },
      params.seed,
    );
    let finished = false;
    const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
    const running = runCampaign(stack, pairsSpec({ pairs, concurrency: params.concurrency, budgetUsd }), {
      timeoutMs,
    }).finally(() => {
      finished = true;
    });
    const [run, fired] = await Promise.all([running, runChaos(stack, events, () => finished, timeoutMs)]);
    const outcome = await verifyOutcome(stack, run);
    const kills = fired.filter((e) => e.action === 'kill-worker' && e.firedAtMs !== undefined).length;
    const restarts = fired.filter((e) => e.action === 'restart-temporal' && e.firedAtMs !== undefined).length;
    const checks = [
      check(
        'chaos applied: every planned SIGKILL and server restart happened mid-run',
        kills === params.kills && restarts === params.restarts,
        `${kills}/${params.kills} worker SIGKILLs, ${restarts}/${params.restarts} Temporal restarts`,
      ),
      check('campaign completed', run.progress.outcome === 'completed', `outcome ${run.progress.outcome}`),
      ...outcome.checks,
    ];
    const report = chaosReport(
      params.ignoreIdempotency ? 'crash-no-idempotency' : 'crash',
      params,
      run.wallMs,
      outcome.numbers,
      fired,
      checks,
      stack,
    );
    keep = !report.ok;
    return report;
  } finally {
    await stack.stop({ keepDir: keep });
  }
}

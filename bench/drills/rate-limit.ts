/**
 * `rate-limit`: the service's create limit is cut mid-run (as when an account is downgraded or a
 * provider throttles). The engine must adapt: after a settling period (a minute in the full
 * drill, counted from the cut) at most 1 % of requests are answered 429, and nothing fails. The 429 share is measured
 * per time window from ledger snapshots taken during the run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ledger } from '../../emulator/index.ts';
import { runCampaign } from '../lib/campaign.ts';
import { startStack } from '../lib/stack.ts';
import { check, type DrillReport, drillReport } from './report.ts';
import { stillsSpec } from './specs.ts';
import { verifyOutcome } from './verify.ts';

export interface RateLimitDrillOptions {
  /** I4 stills, default 900. */
  jobs?: number;
  seed?: number;
  latencyMs?: number;
  concurrency?: number;
  /** Creates per minute before and after the cut. */
  createsPerMinute?: { before: number; after: number };
  /** The cut happens once this share of the jobs was created. */
  cutAt?: number;
  /** The 429 goal applies from this long after the start (default 60 s, issue 5). */
  settleMs?: number;
  windowMs?: number;
}

interface Snapshot {
  atMs: number;
  requests: number;
  rateLimited: number;
  created: number;
}

function snapshotOf(ledger: Ledger, atMs: number): Snapshot {
  let requests = 0;
  let rateLimited = 0;
  for (const byStatus of Object.values(ledger.requests)) {
    for (const [status, count] of Object.entries(byStatus)) {
      requests += count;
      if (status === '429') rateLimited += count;
    }
  }
  return { atMs, requests, rateLimited, created: ledger.predictionsCreated };
}

export async function rateLimitDrill(opts: RateLimitDrillOptions = {}): Promise<DrillReport> {
  const params = {
    jobs: opts.jobs ?? 900,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    latencyMs: opts.latencyMs ?? 1_000,
    concurrency: opts.concurrency ?? 50,
    createsPerMinute: opts.createsPerMinute ?? { before: 3_000, after: 480 },
    cutAt: opts.cutAt ?? 0.1,
    settleMs: opts.settleMs ?? 60_000,
    windowMs: opts.windowMs ?? 10_000,
  };
  const stack = await startStack({
    emulator: {
      latencyMs: { I4: params.latencyMs },
      seed: params.seed,
      limits: {
        createsPerMinute: params.createsPerMinute.before,
        requestsPerMinute: 100_000,
        maxInFlight: 200,
      },
    },
  });
  let keep = true; // a drill that throws keeps its folder for inspection
  try {
    let finished = false;
    const started = Date.now();
    const running = runCampaign(stack, stillsSpec({ jobs: params.jobs, concurrency: params.concurrency }), {
      timeoutMs: 15 * 60_000,
    }).finally(() => {
      finished = true;
    });
    const snapshots: Snapshot[] = [snapshotOf(await stack.ledger(), 0)];
    let cutAtMs: number | null = null;
    while (!finished) {
      await Promise.race([running.catch(() => {}), sleep(params.windowMs / 4)]);
      const snapshot = snapshotOf(await stack.ledger(), Date.now() - started);
      snapshots.push(snapshot);
      if (cutAtMs === null && snapshot.created >= params.jobs * params.cutAt) {
        await stack.setLimits({ createsPerMinute: params.createsPerMinute.after });
        cutAtMs = snapshot.atMs;
      }
    }
    const run = await running;
    const windows = windowsOf(snapshots, params.windowMs);
    // Settling is counted from the cut, not from the start: on a loaded machine the cut comes late,
    // and a window from the start left the engine only a moment to meet the new limit.
    const settledFrom = (cutAtMs ?? 0) + params.settleMs;
    const settled = windows.filter((w) => w.fromMs >= settledFrom);
    const settledRequests = settled.reduce((n, w) => n + w.requests, 0);
    const settled429 = settled.reduce((n, w) => n + w.rateLimited, 0);
    const worst = Math.max(0, ...settled.map((w) => w.share));
    const outcome = await verifyOutcome(stack, run);
    const failed = run.progress.steps.reduce((n, s) => n + s.failed, 0);
    const checks = [
      check('the limit was cut mid-run', cutAtMs !== null, `cut at ${cutAtMs} ms of ${run.wallMs} ms`),
      check(
        `429 share ≤ 1 % from ${params.settleMs / 1000} s after the cut`,
        settledRequests > 0 && settled429 <= settledRequests * 0.01,
        `${settled429} of ${settledRequests} requests answered 429; worst ${params.windowMs / 1000} s window ${(worst * 100).toFixed(2)} % (of ${settled.length})`,
      ),
      check('nothing fails', failed === 0 && run.progress.outcome === 'completed', `${failed} failed`),
      ...outcome.checks,
    ];
    const numbers = { ...outcome.numbers, cutAtMs, windows };
    const report = drillReport('rate-limit', params, run.wallMs, numbers, checks, stack.dir);
    keep = !report.ok;
    return report;
  } finally {
    await stack.stop({ keepDir: keep });
  }
}

interface Window {
  fromMs: number;
  requests: number;
  rateLimited: number;
  share: number;
}

/** Differences between the snapshots closest to each window's edges. */
function windowsOf(snapshots: readonly Snapshot[], windowMs: number): Window[] {
  const windows: Window[] = [];
  let start = snapshots[0]!;
  for (const snapshot of snapshots.slice(1)) {
    if (snapshot.atMs - start.atMs < windowMs && snapshot !== snapshots.at(-1)) continue;
    const requests = snapshot.requests - start.requests;
    const rateLimited = snapshot.rateLimited - start.rateLimited;
    windows.push({
      fromMs: start.atMs,
      requests,
      rateLimited,
      share: requests === 0 ? 0 : rateLimited / requests,
    });
    start = snapshot;
  }
  return windows;
}

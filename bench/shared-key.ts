/**
 * `npm run bench -- shared-key`: campaigns on one API key, started a few seconds apart, share its
 * limits through the rate governor (docs/engine.md, "One rate limit per API key"). Issue 13: 4
 * campaigns × 2,500 I4 jobs, 5 s apart, L = 1 s, R = 50/s, 100 in flight; all done within
 * 1.05 × T_min (N/R + L from the first start, ≈ 201 s), 429 share ≤ 0.5 %, and while all four run
 * each gets 25 % ± 5 % of the creates in every 10 s window.
 *
 * `--weights 3,1,1,1` and `--priorities 0,0,0,1` (issue 24) give each campaign the spec's `weight:`
 * and `priority:`: while all run, each should get its expected part (`expectedShares`).
 *
 * `--jobs 100 --stagger-s 1` (and `--campaigns`) checks the code on a small size.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { governorWorkflowId } from '../contract/governor-messages.ts';
import { keyFingerprint } from '../control/governor.ts';
import { type CampaignRun, runCampaign } from './lib/campaign.ts';
import { historyProfile } from './lib/history-profile.ts';
import { replayCampaign } from './lib/replay.ts';
import { paceOf, requestStats, round, type Verdict, verdict } from './lib/report.ts';
import { startStack } from './lib/stack.ts';
import { workerReady } from './throughput/run-workload.ts';
import { emulatorFor, imageSweep } from './throughput/workloads.ts';

export interface SharedKeyOptions {
  readonly campaigns: number;
  /** Jobs per campaign: a multiple of 50 (a 50-column matrix). */
  readonly jobs: number;
  readonly staggerS: number;
  /** Each campaign's `weight:` (absent: 1 each). */
  readonly weights?: readonly number[];
  /** Each campaign's `priority:` (absent: 0 each). */
  readonly priorities?: readonly number[];
}

/**
 * What each campaign should get of the creates while all run: the highest priority present takes
 * the whole key, split by weight (its campaigns ask for the whole in-flight limit, so they can use
 * all of it); the others only a trickle, counted as nothing (workflows/governor/engine/shares.ts).
 */
export function expectedShares(weights: readonly number[], priorities: readonly number[]): number[] {
  const top = Math.max(...priorities);
  const served = weights.reduce((sum, w, i) => (priorities[i] === top ? sum + w : sum), 0);
  return weights.map((w, i) => (priorities[i] === top ? w / served : 0));
}

const RATE = 50;
const IN_FLIGHT = 100;
const LATENCY_S = 1;
const WINDOW_S = 10;
const GOALS = { overBound: 1.05, rateLimitedShare: 0.005, shareTolerance: 0.05 };

export async function measureSharedKey(options: SharedKeyOptions) {
  const { campaigns, jobs, staggerS } = options;
  const weights = options.weights ?? Array.from({ length: campaigns }, () => 1);
  const priorities = options.priorities ?? Array.from({ length: campaigns }, () => 0);
  const expected = expectedShares(weights, priorities);
  const total = campaigns * jobs;
  const boundS = total / RATE + LATENCY_S;
  const stack = await startStack({ emulator: emulatorFor(RATE, IN_FLIGHT, LATENCY_S * 1000), workers: 1 });
  try {
    await workerReady(stack);
    const governor = keyFingerprint(stack.emulatorUrl, stack.apiKey);
    const ran = await Promise.all(
      Array.from({ length: campaigns }, async (_, i) => {
        await sleep(i * staggerS * 1000);
        // Each campaign asks for the whole in-flight limit: the governor decides what it gets.
        const spec =
          imageSweep(`shared-${i + 1}`, jobs / 50, 50, IN_FLIGHT).replace('{{OUT}}', 'out') +
          `weight: ${weights[i]}\npriority: ${priorities[i]}\n`;
        const run = await runCampaign(stack, spec, { governor, timeoutMs: boundS * 5 * 1000 });
        return { run, endedAt: Date.now() };
      }),
    );
    // T_min counts from the first workflow start (each run's wall is from its start request):
    // planning and preflight before it are the CLI's, as in the throughput benchmarks.
    const firstStart = Math.min(...ran.map(({ run, endedAt }) => endedAt - run.wallMs));
    const runs = ran.map(({ run, endedAt }) => ({ run, endedS: (endedAt - firstStart) / 1000 }));
    const created = await Promise.all(runs.map(({ run }) => createdAt(run, firstStart)));
    const ledger = await stack.ledger();
    const requests = requestStats(ledger, total);
    const allDoneS = Math.max(...runs.map((r) => r.endedS));
    const windows = shareWindows(created);
    // No whole window while all ran (a small run) measures nothing: that is a miss, not a pass.
    const worstDeviation =
      windows.length === 0
        ? Number.POSITIVE_INFINITY
        : Math.max(...windows.flatMap((w) => w.shares.map((s, i) => Math.abs(s - expected[i]!))));
    const ids = [...runs.map(({ run }) => run.workflowId), governorWorkflowId(governor)];
    const replays = await Promise.all(ids.map((id) => replayCampaign(stack.client, id)));
    const histories = await Promise.all(ids.map((id) => historyProfile(stack.client, id)));
    const verdicts: Verdict[] = [
      verdict(
        'all jobs succeeded',
        total - runs.reduce((n, { run }) => n + succeeded(run), 0),
        0,
        ' missing',
      ),
      verdict('all done / T_min', allDoneS / boundS, GOALS.overBound),
      verdict('share of 429s', requests.rateLimitedShare, GOALS.rateLimitedShare),
      verdict(
        `worst share off its expected part in a ${WINDOW_S} s window`,
        worstDeviation,
        GOALS.shareTolerance,
      ),
      verdict(
        'runs that do not replay',
        replays.reduce((n, r) => n + r.failures.length, 0),
        0,
      ),
    ];
    return {
      workload: {
        campaigns,
        jobsPerCampaign: jobs,
        staggerS,
        weights,
        priorities,
        expectedShares: expected.map((e) => round(e, 4)),
        rate: RATE,
        inFlight: IN_FLIGHT,
        latencyS: LATENCY_S,
      },
      boundS,
      boundFormula: `${total}/${RATE} + ${LATENCY_S}`,
      allDoneS: round(allDoneS, 2),
      campaigns: runs.map(({ run, endedS }, i) => ({
        campaign: run.plan.campaign,
        wallS: round(run.wallMs / 1000, 2),
        endedS: round(endedS, 2),
        succeeded: succeeded(run),
        workflowRuns: run.progress.runs,
        pace: paceOf((created[i] ?? []).map((s) => s * 1000)),
        history: histories[i],
      })),
      governor: { history: histories[campaigns], replay: replays[campaigns] },
      requests,
      windows,
      replays,
      verdicts,
    };
  } finally {
    await stack.stop();
  }
}

function succeeded(run: CampaignRun): number {
  return run.progress.steps.reduce((n, step) => n + step.succeeded, 0);
}

/** Seconds from the first start at which each of the campaign's predictions was created. */
async function createdAt(run: CampaignRun, firstStart: number): Promise<number[]> {
  const text = await readFile(join(run.plan.outputDir, 'manifest.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (Date.parse((JSON.parse(line) as { created_at: string }).created_at) - firstStart) / 1000)
    .sort((a, b) => a - b);
}

/**
 * Each campaign's part of the creates in whole WINDOW_S windows while every campaign runs: from
 * the last campaign's first create to the first campaign's last one.
 */
export function shareWindows(created: readonly (readonly number[])[]) {
  const from = Math.max(...created.map((c) => c[0] ?? Number.POSITIVE_INFINITY));
  const to = Math.min(...created.map((c) => c.at(-1) ?? 0));
  const windows: { fromS: number; creates: number[]; shares: number[] }[] = [];
  for (let start = from; start + WINDOW_S <= to; start += WINDOW_S) {
    const creates = created.map((c) => c.filter((t) => t >= start && t < start + WINDOW_S).length);
    const sum = creates.reduce((a, b) => a + b, 0);
    windows.push({
      fromS: round(start, 2),
      creates,
      shares: creates.map((n) => round(sum === 0 ? 0 : n / sum, 4)),
    });
  }
  return windows;
}

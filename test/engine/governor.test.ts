/**
 * Two campaigns on one API key share its limits through the rate governor, on the suite's real
 * Temporal and a real emulator limited to 10 creates a second: few 429s, about half the creates
 * each while both run, and the whole rate for the one left once the other has finished.
 */
import { describe, expect, it } from 'vitest';
import { storePlan } from '../../activities/plan-store.ts';
import type { Plan } from '../../plan/types.ts';
import { startOrAttach } from '../../worker/campaign-control.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { createGovernorWorker, keyFingerprint } from '../../worker/governor.ts';
import { workflowBundle } from '../../worker/workflow-bundle.ts';
import { harness } from './harness.ts';

const RATE = 10;

function stills(campaign: string, jobs: number): string {
  return `
version: 1
campaign: ${campaign}
concurrency: 20
output: { dir: out-${campaign} }
steps:
  - id: still
    model: I4
    repeat: ${jobs}
    input: { prompt: "A lamp on an oak table, ${campaign}" }
`;
}

/** Creation times (service clock, ms) of a finished campaign's predictions, in order. */
async function createdAt(h: Awaited<ReturnType<typeof harness>>, plan: Plan): Promise<number[]> {
  const entries = await h.manifest(plan);
  return entries.map((e) => Date.parse(String(e.created_at))).sort((a, b) => a - b);
}

const within = (times: number[], from: number, to: number) => times.filter((t) => t >= from && t < to).length;

describe('rate governor', () => {
  it('shares one key between two campaigns: few 429s, half each, all of it once one ends', async () => {
    const h = await harness({
      timeScale: 1,
      latencyMs: 300,
      jitter: false,
      limits: { createsPerMinute: RATE * 60, requestsPerMinute: 600_000, maxInFlight: 50 },
    });
    const key = keyFingerprint(h.emulator.baseUrl, h.emulator.apiKey);
    const long = await h.plan(stills('long', 80));
    const short = await h.plan(stills('short', 40));
    const bundle = await workflowBundle();
    const worker = await createMediaflowWorker({
      connection: h.connection,
      namespace: 'default',
      client: h.service,
      taskQueue: h.taskQueue,
      workflowBundle: bundle,
    });
    const governor = await createGovernorWorker({
      connection: h.connection,
      namespace: 'default',
      workflowBundle: bundle,
    });
    const start = async (plan: Plan) =>
      (await startOrAttach(h.temporal, plan, await storePlan(plan), h.taskQueue, key)).handle;

    const results = await governor.runUntil(
      worker.runUntil(async () => {
        const handles = await Promise.all([start(long), start(short)]);
        return Promise.all(handles.map((handle) => handle.result()));
      }),
    );
    expect(results.map((p) => p.outcome)).toEqual(['completed', 'completed']);

    const ledger = h.emulator.ledger();
    expect(ledger.predictionsCreated).toBe(120);
    // Each pacing to the whole rate on its own, the same two campaigns drew 16 (docs/engine.md).
    expect(ledger.rateLimited).toBeLessThanOrEqual(8);

    const a = await createdAt(h, long);
    const b = await createdAt(h, short);
    const bothFrom = Math.max(a[0] ?? 0, b[0] ?? 0) + 1_000; // the second joined a second ago
    const bothTo = b[b.length - 1] ?? 0;
    const together = within(a, bothFrom, bothTo) + within(b, bothFrom, bothTo);
    expect(together).toBeGreaterThan(10);
    const longPart = within(a, bothFrom, bothTo) / together;
    expect(longPart).toBeGreaterThan(0.35);
    expect(longPart).toBeLessThan(0.65);
    // Alone, the long campaign takes the whole rate: nearly 10 a second once the short one ended.
    const alone = a.filter((t) => t > bothTo + 500);
    expect(alone.length).toBeGreaterThan(20);
    const aloneRate = ((alone.length - 1) * 1000) / ((alone[alone.length - 1] ?? 0) - (alone[0] ?? 0));
    expect(aloneRate).toBeGreaterThan(RATE * 0.8);
  }, 60_000);
});

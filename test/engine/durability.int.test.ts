/**
 * Durability on real processes: a rate limit lowered mid-run, a campaign canceled mid-run, and
 * history kept bounded by continue-as-new. After each: every job has its file, and nothing was
 * paid twice. A worker SIGKILLed and the Temporal server restarted mid-run are the crash drill's
 * (test/drills/crash.int.test.ts: two SIGKILLs and a restart, with faults, every check of verify.ts).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TERMINAL_STATUSES } from '../../api/wire/index.ts';
import { replayCampaign } from '../../bench/lib/replay.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { taskTimeoutOf } from '../../control/campaign.ts';
import { campaignView } from '../../control/campaign-view.ts';
import type { Plan } from '../../plan/types.ts';
import { readClaims } from '../../records/claims.ts';
import { openStore } from '../../store/index.ts';
import { startDevServer } from '../../worker/dev-server.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import { type Harness, harness } from './harness.ts';

/** `n` I4 stills, nothing chained. */
function stills(n: number, concurrency: number, campaign = 'durable-stills'): string {
  const products = Array.from({ length: n }, (_, i) => `p${i}`).join(', ');
  return `
version: 1
campaign: ${campaign}
concurrency: ${concurrency}
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { product: [${products}] }
    input: { prompt: "Studio shot of product {{product}}" }
`;
}

/** `n` I4 stills, each animated by V6: 2n jobs, $0.63 a pair. */
function pairs(n: number, concurrency = 6): string {
  return `${stills(n, concurrency, 'durable')}  - id: clip
    model: V6
    from: still
    input: { prompt: "Product {{product}} turning slowly", first_frame_image: "{{from.output}}" }
`;
}

type Handle = WorkflowHandle<typeof campaignWorkflow>;

/** The memo's progress (docs/engine.md, "Progress without queries"): no worker is asked. */
async function progressOf(client: Client, handle: Handle): Promise<CampaignProgress | null> {
  return campaignView(client, handle).then(
    (view) => view.progress,
    () => null,
  );
}

/** Polls the campaign until `ready` holds (bounded: fails the test after `timeoutMs`). */
async function waitFor(
  client: Client,
  handle: Handle,
  ready: (p: CampaignProgress) => boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const progress = await progressOf(client, handle);
    if (progress && ready(progress)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('campaign did not reach the expected state in time');
}

const created = (p: CampaignProgress) => p.steps.reduce((n, s) => n + s.created, 0);

/** Every planned job has exactly one manifest line whose file matches its checksum; no partial files. */
async function expectCompleteOutputs(h: Harness, plan: Plan): Promise<void> {
  const manifest = await h.manifest(plan);
  expect(manifest.map((e) => e.key).sort()).toEqual(plan.jobs.map((j) => j.key).sort());
  for (const entry of manifest) {
    const data = await readFile(join(plan.outputDir, String(entry.file)));
    expect(createHash('sha256').update(data).digest('hex')).toBe(entry.sha256);
  }
  const files = await readdir(plan.outputDir, { recursive: true });
  expect(files.filter((f) => f.endsWith('.part'))).toEqual([]);
}

describe('durability', () => {
  it('rides out a rate limit lowered mid-run by honouring Retry-After', async () => {
    const h = await harness({ latencyMs: 200, timeScale: 1, limits: { createsPerMinute: 6_000 } });
    const plan = await h.plan(pairs(10, 10));
    const progress = await h.run(plan, async (handle) => {
      await waitFor(h.temporal, handle, (p) => created(p) >= 2);
      h.emulator.setLimits({ createsPerMinute: 120 });
    });

    expect(progress.steps.map((s) => [s.succeeded, s.failed])).toEqual([
      [10, 0],
      [10, 0],
    ]);
    const ledger = h.emulator.ledger();
    expect(ledger.rateLimited).toBeGreaterThan(0);
    expect(ledger.predictionsCreated).toBe(20);
  }, 120_000);

  it('cancels in-flight predictions upstream and keeps what was already downloaded', async () => {
    const h = await harness({ latencyMs: { I4: 100, V6: 30_000 }, jitter: false, timeScale: 1 });
    const plan = await h.plan(pairs(4, 8));
    const progress = await h.run(plan, async (handle) => {
      // All stills done and all clips in flight (each takes 30 s).
      await waitFor(h.temporal, handle, (p) => p.steps[0]!.succeeded === 4 && p.steps[1]!.created === 4);
      await handle.cancel();
    });

    expect(progress.outcome).toBe('canceled');
    expect(progress.steps[1]!.canceled).toBe(4);
    expect(h.emulator.ledger().canceledPredictions).toBe(4);
    const manifest = await h.manifest(plan);
    expect(manifest.map((e) => e.step)).toEqual(['still', 'still', 'still', 'still']);
  }, 120_000);

  it('completes canceled, with its progress, when canceled before any worker ran it', async () => {
    const h = await harness();
    const plan = await h.plan(pairs(3));
    const handle = await h.start(plan);
    await handle.cancel();
    await h.startWorker();
    const progress = await handle.result();
    expect(progress.outcome).toBe('canceled');
    expect(progress.steps.map((s) => [s.planned, s.created, s.waiting])).toEqual([
      [3, 0, 0],
      [3, 0, 0],
    ]);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    expect(h.emulator.ledger().predictionsCreated).toBe(0);
  }, 60_000);

  it('leaves nothing running upstream when canceled while finishes are creating the next jobs', async () => {
    // Window-bound (4 in flight, 1.5 s each, 100 creates/s allowed): finishes name heirs.
    const h = await harness({
      latencyMs: { I4: 1_500 },
      jitter: false,
      timeScale: 1,
      limits: { createsPerMinute: 6_000 },
    });
    const plan = await h.plan(stills(24, 4));
    const progress = await h.run(plan, async (handle) => {
      await waitFor(h.temporal, handle, (p) => created(p) >= 10);
      await handle.cancel();
    });

    expect(progress.outcome).toBe('canceled');
    const claims = await readClaims(openStore(plan.outputDir), plan.campaign);
    expect(claims.length).toBeGreaterThanOrEqual(10);
    // Read at once: a prediction created and not canceled would still be running for 1.5 s.
    const statuses = await Promise.all(
      claims.map(async (c) => (await h.service.predictions.get(c.prediction_id)).status),
    );
    expect(statuses.filter((status) => !TERMINAL_STATUSES.has(status))).toEqual([]);
    expect(h.emulator.ledger().canceledPredictions).toBeGreaterThan(0);
    expect(h.emulator.ledger().predictionsCreated).toBe(claims.length);
  }, 120_000);

  it('gives a replacement worker 20 s to replay a run of a campaign of more than 1,000 jobs', async () => {
    const h = await harness();
    const values = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, k) => `${prefix}${k}`).join(', ');
    const plan = await h.plan(`
version: 1
campaign: large
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { colour: [${values('c', 7)}], angle: [${values('a', 143)}] }
    input: { prompt: "Acme kettle, {{colour}}, {{angle}}" }
`);
    expect(plan.jobs).toHaveLength(1_001);
    // Started with no worker: only how it starts is looked at.
    const handle = await h.start(plan);
    onTestFinished(async () => {
      await handle.terminate('test over').catch(() => {});
    });
    const { raw } = await handle.describe();
    expect(Number(raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(20);
    expect(taskTimeoutOf(1_000)).toBe('10s');
  });

  it('keeps every run under the history limit with continue-as-new, losing nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-can-'));
    const server = await startDevServer({
      dbFile: join(dir, 'temporal.db'),
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 80 },
    });
    onTestFinished(() => server.stop());
    // Predictions take a while, so every roll-over drains some in flight first.
    const h = await harness({ temporalAddress: server.address, latencyMs: 300, timeScale: 1 });
    const plan = await h.plan(pairs(30, 4));
    const progress = await h.run(plan);

    expect(progress.steps.map((s) => s.succeeded)).toEqual([30, 30]);
    // At least one roll-over: how many depends on how many finishes a batch carries, which grows
    // when the machine is loaded (seen: 2 runs under load, 3–4 quiet).
    expect(progress.runs).toBeGreaterThanOrEqual(2);
    expect(h.emulator.ledger().predictionsCreated).toBe(60);
    const lengths: number[] = [];
    const taskTimeouts = new Set<string>();
    for await (const run of h.temporal.workflow.list({
      query: `WorkflowId = "mediaflow-${plan.campaign}"`,
    })) {
      const history = await h.temporal.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      lengths.push(history.events?.length ?? 0);
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      taskTimeouts.add(String(started?.workflowTaskTimeout?.seconds));
    }
    expect(lengths).toHaveLength(progress.runs);
    // Every run, continued ones too, keeps the timeout the campaign started with (a small one's: 10 s).
    expect([...taskTimeouts]).toEqual([taskTimeoutOf(60).replace('s', '')]);
    // The server suggests rolling over at 80 events (batched finishes make ~1.5 per job); draining
    // what is in flight adds a little.
    expect(Math.max(...lengths)).toBeLessThan(400);
    // Every run replays on this code: the worker that picks a run up after a crash would.
    expect(await replayCampaign(h.temporal, `mediaflow-${plan.campaign}`)).toEqual({
      runs: progress.runs,
      failures: [],
    });
    await expectCompleteOutputs(h, plan);
  }, 180_000);
});

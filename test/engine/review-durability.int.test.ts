/**
 * Review gates over time: takes waiting for review hold no window space (the campaign keeps
 * generating), and they survive a SIGKILLed worker, a Temporal restart and continue-as-new with
 * their decisions intact; every run replays on the current code.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { replayCampaign } from '../../bench/lib/replay.ts';
import { readDecisions } from '../../records/decisions.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { startDevServer } from '../../worker/dev-server.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';
import { harness } from './harness.ts';
import { keysOf, review, reviewedSpec, until } from './review-client.ts';

describe('review gates over time', () => {
  it('takes waiting for review hold no window space: every still is made before any decision', async () => {
    const h = await harness();
    // 150 stills with a clip each (300 jobs) through a window of 100 (concurrency 4): were the
    // waiting stills' clips kept in the window, it would fill and stop after about 50 stills.
    const plan = await h.plan(`
version: 1
campaign: review-window
concurrency: 4
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: 150
    input: { prompt: "A lamp on an oak table, take {{variant}}" }
    review: true
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit", start_image: "{{from.output}}", duration: "5" }
`);
    const stills = keysOf(plan, 'still');
    const result = await h.run(plan, async (handle) => {
      await until(h, handle, (still) => still.awaiting_review === 150);
      expect(h.emulator.ledger().byModel).toEqual({ I4: 150 });
      for (let n = 0; n < stills.length; n += 50) {
        const decisions = stills
          .slice(n, n + 50)
          .map((key, k) => ({ key, action: k < 10 ? 'approve' : 'reject' }) as const);
        expect((await review(handle, decisions)).accepted).toHaveLength(50);
      }
    });
    expect(result.steps[1]).toMatchObject({ succeeded: 30, skipped: 120 });
    expect(h.emulator.ledger().byModel).toEqual({ I4: 150, V4: 30 });
  }, 120_000);

  it('pending reviews survive a SIGKILLed worker and a Temporal restart: a new worker takes the decisions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-review-restart-'));
    const server = await startDevServer({ dbFile: join(dir, 'temporal.db') });
    onTestFinished(() => server.stop());
    const h = await harness({ temporalAddress: server.address });
    const plan = await h.plan(reviewedSpec('true'));
    const handle = await h.start(plan);
    const first = h.spawnWorker();
    await until(h, handle, (still) => still.awaiting_review === 3);
    first.kill('SIGKILL');
    await server.restart();
    const [kettle, lamp, watch] = keysOf(plan, 'still') as [string, string, string];
    const worker = await createMediaflowWorker({
      connection: h.connection,
      namespace: 'default',
      client: h.service,
      taskQueue: h.taskQueue,
      workflowBundle: suiteWorkflowBundle(),
    });
    const result = await worker.runUntil(async () => {
      const ack = await review(handle, [
        { key: kettle, action: 'reject' },
        { key: lamp, action: 'reject' },
        { key: watch, action: 'approve' },
      ]);
      expect(ack.accepted).toHaveLength(3);
      return handle.result();
    });
    expect(result.steps[0]).toMatchObject({ approved: 1, rejected: 2 });
    expect(result.steps[1]).toMatchObject({ succeeded: 1, skipped: 2 });
    expect(h.emulator.ledger().byModel).toEqual({ I1: 3, V4: 1 });
    expect((await readDecisions(plan.outputDir, plan.campaign)).size).toBe(3);
    expect((await replayCampaign(h.temporal, handle.workflowId)).failures).toEqual([]);
  }, 120_000);

  it('takes awaiting review cross continue-as-new, and decisions sent across roll-overs all apply', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-review-can-'));
    const server = await startDevServer({
      dbFile: join(dir, 'temporal.db'),
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 100 },
    });
    onTestFinished(() => server.stop());
    const h = await harness({ temporalAddress: server.address });
    const plan = await h.plan(`
version: 1
campaign: review-can
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: 16
    input: { prompt: "A lamp on an oak table, take {{variant}}" }
    review: true
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit", start_image: "{{from.output}}", duration: "5" }
`);
    const stills = keysOf(plan, 'still');
    const result = await h.run(plan, async (handle) => {
      await until(h, handle, (still) => still.awaiting_review === 16);
      // One decision per update: each adds history, so the campaign rolls over between them.
      for (const [n, key] of stills.entries()) {
        const ack = await review(handle, [{ key, action: n % 2 === 0 ? 'approve' : 'reject' }]);
        expect(ack.accepted).toEqual([key]);
      }
    });
    expect(result.outcome).toBe('completed');
    expect(result.runs).toBeGreaterThanOrEqual(3);
    expect(result.steps[0]).toMatchObject({ approved: 8, rejected: 8, awaiting_review: 0 });
    expect(result.steps[1]).toMatchObject({ succeeded: 8, skipped: 8 });
    expect(h.emulator.ledger().byModel).toEqual({ I4: 16, V4: 8 });
    expect(await replayCampaign(h.temporal, `mediaflow-${plan.campaign}`)).toEqual({
      runs: result.runs,
      failures: [],
    });
  }, 120_000);
});

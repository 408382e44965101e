/**
 * Review gates end to end (docs/spec-format.md, "Review gates"), on the suite's Temporal dev
 * server and a real emulator: stills wait for decisions sent as the `review` update; approved
 * ones start their videos, rejected ones' videos are never created, a regeneration makes exactly
 * one new prediction; decisions are recorded, survive a SIGKILLed worker, a Temporal restart and
 * continue-as-new, and a re-run asks nothing.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApplicationFailure, type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readDecisions } from '../../activities/decisions.ts';
import { replayCampaign } from '../../bench/lib/replay.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import {
  REVIEW_UPDATE,
  type ReviewAck,
  type ReviewBatch,
  type ReviewDecision,
} from '../../contract/review.ts';
import type { Plan } from '../../plan/types.ts';
import { campaignView } from '../../worker/campaign-control.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { startDevServer } from '../../worker/dev-server.ts';
import type { campaignWorkflow } from '../../workflows/campaign.ts';
import { type Harness, harness } from './harness.ts';

type Handle = WorkflowHandle<typeof campaignWorkflow>;

function reviewedSpec(review: string): string {
  return `
version: 1
campaign: review
budget: { max_usd: 10 }
output: { dir: out }
steps:
  - id: still
    model: I1
    matrix: { product: [kettle, lamp, watch] }
    input: { prompt: "Acme {{product}} on oak", aspect_ratio: "16:9" }
    review: ${review}
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", duration: "5" }
`;
}

/** Polls the memo (never a query) until `ready` holds for the reviewed step's progress. */
async function until(
  h: Harness,
  handle: Handle,
  ready: (still: CampaignProgress['steps'][number]) => boolean,
) {
  for (let tries = 0; tries < 300; tries++) {
    const view = await campaignView(h.temporal, handle);
    if (ready(view.progress.steps[0]!)) return view.progress;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the campaign never reached the expected review state');
}

function review(handle: Handle, decisions: ReviewDecision[]): Promise<ReviewAck> {
  return handle.executeUpdate<ReviewAck, [ReviewBatch]>(REVIEW_UPDATE, { args: [{ decisions }] });
}

const keysOf = (plan: Plan, step: string) =>
  plan.jobs.filter((job) => job.step === step).map((job) => job.key);

describe('review gates', () => {
  it('approve two, reject one, regenerate: only approved stills get videos, a retake is one prediction', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('{ edit_prompt: true }'));
    const [kettle, lamp, watch] = keysOf(plan, 'still') as [string, string, string];
    const result = await h.run(plan, async (handle) => {
      await until(h, handle, (still) => still.awaiting_review === 3);
      // Nothing beyond the stills is created while they wait.
      expect(h.emulator.ledger().byModel).toEqual({ I1: 3 });
      const ack = await review(handle, [
        { key: kettle, action: 'approve', by: 'ana' },
        { key: lamp, action: 'reject', note: 'too dark' },
        { key: watch, action: 'regenerate', prompt: 'Acme watch on slate, soft light' },
        { key: kettle, action: 'approve' },
      ]);
      expect(ack.accepted).toEqual([kettle, lamp, watch]);
      expect(ack.refused).toEqual([
        { key: kettle, reason: 'not_awaiting_review', message: 'decided already' },
      ]);
      await until(h, handle, (still) => still.awaiting_review === 1 && still.regenerated === 1);
      expect(h.emulator.ledger().byModel.I1).toBe(4);
      // A batch none of whose decisions can apply is refused whole, with each reason.
      const refused = await review(handle, [
        { key: 'f'.repeat(32), action: 'approve' },
        { key: lamp, action: 'approve' },
      ]).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      // Its details hold the same acknowledgement a partly accepted batch returns.
      expect(((refused as WorkflowUpdateFailedError).cause as ApplicationFailure).details).toEqual([
        {
          accepted: [],
          refused: [
            { key: 'f'.repeat(32), reason: 'unknown_job', message: expect.any(String) },
            { key: lamp, reason: 'not_awaiting_review', message: 'decided already' },
          ],
        },
      ]);
      expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(
        /no decision of this batch can apply: f{32}: no job of a reviewed step awaits .*; [0-9a-f]{32}: decided already/,
      );
      expect((await review(handle, [{ key: watch, action: 'approve' }])).accepted).toEqual([watch]);
    });

    expect(result.outcome).toBe('completed');
    expect(result.steps[0]).toMatchObject({
      succeeded: 4,
      regenerated: 1,
      approved: 2,
      rejected: 1,
      awaiting_review: 0,
    });
    expect(result.steps[1]).toMatchObject({ succeeded: 2, skipped: 1 });
    // The rejected still's video was never created, nor paid.
    expect(h.emulator.ledger().byModel).toEqual({ I1: 4, V4: 2 });
    const manifest = await h.manifest(plan);
    const clipParents = new Set(
      manifest.filter((e) => e.step === 'clip').map((e) => plan.jobs.find((j) => j.key === e.key)!.parent),
    );
    expect(clipParents).toEqual(new Set([kettle, watch]));
    // The retake went out with the reviewer's prompt and is saved beside the first take.
    const retake = manifest.find((e) => e.key === watch && e.regenerations === 1)!;
    expect(retake.input).toMatchObject({ prompt: 'Acme watch on slate, soft light' });
    expect(retake.file).toMatch(/\.take1\.png$/);

    const decisions = await readDecisions(plan.outputDir, plan.campaign);
    expect(decisions.get(kettle)).toMatchObject({
      action: 'approve',
      take: 0,
      by: 'ana',
      source: 'reviewer',
    });
    expect(decisions.get(lamp)).toMatchObject({ action: 'reject', take: 0, note: 'too dark' });
    expect(decisions.get(watch)).toMatchObject({ action: 'approve', take: 1 });
    expect((await replayCampaign(h.temporal, `mediaflow-${plan.campaign}`)).failures).toEqual([]);

    // Running the unchanged spec again asks nothing and creates nothing.
    const made = h.emulator.ledger().predictionsCreated;
    const again = await h.run(plan);
    expect(again.outcome).toBe('completed');
    expect(again.steps[0]).toMatchObject({ cached: 3, approved: 2, rejected: 1, awaiting_review: 0 });
    expect(again.steps[1]).toMatchObject({ cached: 2, skipped: 1 });
    expect(h.emulator.ledger().predictionsCreated).toBe(made);
  });

  it('editing one prompt asks again only for the job it changes', async () => {
    const h = await harness();
    const first = await h.plan(reviewedSpec('true'));
    await h.run(first, async (handle) => {
      await until(h, handle, (still) => still.awaiting_review === 3);
      await review(
        handle,
        keysOf(first, 'still').map((key) => ({ key, action: 'approve' as const })),
      );
    });
    expect(h.emulator.ledger().byModel).toEqual({ I1: 3, V4: 3 });
    // The watch becomes a clock: one new still (a new key), asked about; the other two are not.
    const edited = await h.plan(reviewedSpec('true').replace('watch]', 'clock]'));
    const clock = keysOf(edited, 'still').find((key) => !keysOf(first, 'still').includes(key))!;
    const result = await h.run(edited, async (handle) => {
      const progress = await until(h, handle, (still) => still.awaiting_review === 1);
      expect(progress.steps[0]).toMatchObject({ cached: 2, approved: 2 });
      expect((await review(handle, [{ key: clock, action: 'approve' }])).accepted).toEqual([clock]);
    });
    expect(result.steps[0]).toMatchObject({ cached: 2, succeeded: 1, approved: 3 });
    expect(result.steps[1]).toMatchObject({ cached: 2, succeeded: 1 });
    expect(h.emulator.ledger().byModel).toEqual({ I1: 4, V4: 4 });
  });

  it('a timeout decides by on_timeout, recorded as the timeout', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('{ timeout: 2s, on_timeout: approve }'));
    const result = await h.run(plan);
    expect(result.outcome).toBe('completed');
    expect(result.steps[0]).toMatchObject({ approved: 3, awaiting_review: 0 });
    expect(result.steps[1]).toMatchObject({ succeeded: 3 });
    const decisions = await readDecisions(plan.outputDir, plan.campaign);
    expect([...decisions.values()].map((d) => [d.action, d.source])).toEqual([
      ['approve', 'timeout'],
      ['approve', 'timeout'],
      ['approve', 'timeout'],
    ]);
  });

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
  });

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

/**
 * Review gates end to end (docs/spec-format.md, "Review gates"), on the suite's Temporal dev
 * server and a real emulator: stills wait for decisions sent as the `review` update; approved
 * ones start their videos, rejected ones' videos are never created, a regeneration makes exactly
 * one new prediction; refusals carry their reasons; a re-run asks nothing and pays nothing.
 */
import { type ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { replayCampaign } from '../../bench/lib/replay.ts';
import { exitOf } from '../../cli/exit-codes.ts';
import type { CampaignProgress } from '../../contract/progress.ts';
import { campaignView } from '../../control/campaign-view.ts';
import { readDecisions } from '../../records/decisions.ts';
import { Manifest } from '../../records/manifest.ts';
import { buildModel } from '../../review/model.ts';
import { sourcesOf } from '../../review/sources.ts';
import { harness } from './harness.ts';
import { keysOf, review, reviewedSpec, until } from './review-client.ts';

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
      succeeded: 3,
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

  it('two retakes and a reject: counts never pass the plan, the steps paid what the ledger charged', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('true'));
    const [kettle, lamp, watch] = keysOf(plan, 'still') as [string, string, string];
    const seen: CampaignProgress[] = [];
    const result = await h.run(plan, async (handle) => {
      seen.push(await until(h, handle, (still) => still.awaiting_review === 3));
      for (const takes of [1, 2]) {
        await review(handle, [{ key: watch, action: 'regenerate' }]);
        seen.push(await until(h, handle, (s) => s.regenerated === takes && s.awaiting_review === 3));
      }
      await review(handle, [
        { key: kettle, action: 'approve' },
        { key: lamp, action: 'reject' },
        { key: watch, action: 'approve' },
      ]);
    });
    const ledger = parseUsd(h.emulator.ledger().creditsCharged);
    expect(h.emulator.ledger().byModel).toEqual({ I1: 5, V4: 2 });
    for (const p of [...seen, result])
      for (const s of p.steps)
        expect(s.succeeded + s.cached + s.failed + s.skipped).toBeLessThanOrEqual(s.planned);
    expect(result.steps[0]).toMatchObject({
      planned: 3,
      succeeded: 3,
      regenerated: 2,
      approved: 2,
      rejected: 1,
    });
    expect(result.steps[1]).toMatchObject({ planned: 3, succeeded: 2, skipped: 1 });
    expect(result.spent).toBe(ledger);
    expect(result.steps.map((s) => s.spent)).toEqual([5 * 120_000, 2 * 250_000]);
    // The report's steps add up to the same, though the manifest lists each still's latest take only.
    const sources = await sourcesOf(plan, { readDecisions, progress: async () => result });
    const model = buildModel(await sources());
    expect(model.steps.reduce((sum, step) => sum + step.spentUsd, 0)).toBe(ledger);
    expect(model.totals.spent).toBe(ledger);
    // The records hold every take: the campaign's total across runs, as status shows it.
    expect(await (await Manifest.open(plan.outputDir)).paid()).toBe(ledger);
    // Every approved job made, a still rejected: the campaign did what it was asked.
    expect(exitOf(result)).toEqual({ code: 0, reason: null });

    // Run again: nothing is made or paid in this run; the report still shows what every run paid.
    const again = await h.run(plan);
    expect(again.spent).toBe(0);
    const rerun = buildModel(await (await sourcesOf(plan, { readDecisions, progress: async () => again }))());
    expect(rerun.steps.map((step) => step.spentUsd)).toEqual([5 * 120_000, 2 * 250_000]);
    expect(rerun.totals.spent).toBe(ledger);
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

  it('a regeneration or an approval that would pass the budget is refused with the reason', async () => {
    const h = await harness();
    // Stills $0.12, clips $0.25: a $1.00 budget fits three stills, two clips and one more take.
    const plan = await h.plan(reviewedSpec('true').replace('max_usd: 10', 'max_usd: 1'));
    const [kettle, lamp, watch] = keysOf(plan, 'still') as [string, string, string];
    const result = await h.run(plan, async (handle) => {
      await until(h, handle, (still) => still.awaiting_review === 3);
      await review(handle, [
        { key: kettle, action: 'approve' },
        { key: lamp, action: 'approve' },
      ]);
      await until(h, handle, (still) => still.approved === 2);
      for (;;) {
        const { steps } = (await campaignView(h.temporal, handle)).progress;
        if (steps[1]!.succeeded === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // $0.86 spent: a new take ($0.12) fits, once.
      expect((await review(handle, [{ key: watch, action: 'regenerate' }])).accepted).toEqual([watch]);
      await until(h, handle, (still) => still.regenerated === 1 && still.awaiting_review === 1);
      const ack = await review(handle, [
        { key: watch, action: 'regenerate' },
        { key: watch, action: 'approve' },
        { key: watch, action: 'reject' },
      ]);
      expect(ack).toEqual({
        accepted: [watch],
        refused: [
          { key: watch, reason: 'over_budget', message: 'a new take would pass budget.max_usd' },
          { key: watch, reason: 'over_budget', message: "this job's descendants would pass budget.max_usd" },
        ],
      });
    });
    expect(result.outcome).toBe('completed');
    expect(result.spent).toBe(980_000);
    expect(h.emulator.ledger().byModel).toEqual({ I1: 4, V4: 2 });
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

  it('canceled while stills await review (a deadline pending), it ends canceled with what it saved', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('{ timeout: 1h, on_timeout: approve }'));
    const result = await h.run(plan, async (handle) => {
      await until(h, handle, (still) => still.awaiting_review === 3);
      await handle.cancel();
    });
    // It used to fail every workflow task instead: the deadline's timer rejected unhandled.
    expect(result.outcome).toBe('canceled');
    expect(result.steps[0]).toMatchObject({ awaiting_review: 3 });
    expect((await h.manifest(plan)).map((e) => e.step)).toEqual(['still', 'still', 'still']);
  });
});

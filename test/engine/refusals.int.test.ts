/**
 * Content refusals and deadlines end to end: a small campaign against the emulator, whose marker
 * words refuse prompts (`[refuse]`, `[refuse:I1]`) and flag outputs (`[flag]`, `[flag:1]`), shows
 * each `on_refusal` (skip, retry, fallback) and a `timeout:` from the create to the report's
 * figures, with the money the campaign counts equal to the emulator's ledger to the micro-dollar.
 */

import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { readDecisions } from '../../records/decisions.ts';
import { readRefusals } from '../../records/refusals.ts';
import { refusalRates } from '../../review/refusal-rates.ts';
import { writeReport } from '../../review/report.ts';
import { sourcesOf } from '../../review/sources.ts';
import { harness } from './harness.ts';

const REFUSALS = `
version: 1
campaign: refusals
budget: { max_usd: 20 }
concurrency: 6
output: { dir: out }
steps:
  - id: skip
    model: I1
    matrix: { product: [sneaker, "watch [refuse]", "lamp [flag]"] }
    input: { prompt: "Acme {{product}}" }
  - id: clip
    model: V4
    from: skip
    input: { prompt: "Slow orbit", start_image: "{{from.output}}", duration: "5" }
  - id: retry
    model: I1
    on_refusal: { retry: 2 }
    matrix: { product: [mug, "chair [flag:1]", "vase [refuse]"] }
    input: { prompt: "Acme {{product}} on a table" }
  - id: fallback
    model: I1
    on_refusal: { fallback: I4 }
    matrix: { product: [kettle, "clock [refuse:I1]", "bowl [flag]"] }
    input: { prompt: "Acme {{product}}, studio light" }
`;

const counts = (step: { succeeded: number; refused?: number; skipped: number; regenerated: number }) => ({
  succeeded: step.succeeded,
  refused: step.refused ?? 0,
  skipped: step.skipped,
  regenerated: step.regenerated,
});

describe('content refusals, end to end', () => {
  it('skip, retry and fallback each end as their rule says, and the money equals the ledger', async () => {
    const h = await harness({ seed: 5 });
    const plan = await h.plan(REFUSALS);
    const progress = await h.run(plan);

    expect(progress.outcome).toBe('completed');
    const byStep = Object.fromEntries(progress.steps.map((step) => [step.id, counts(step)]));
    expect(byStep).toEqual({
      // watch refused at create, lamp's output flagged: both end refused; the campaign goes on.
      skip: { succeeded: 1, refused: 2, skipped: 0, regenerated: 0 },
      // Only sneaker's clip is made: the clips of refused stills are skipped, never created.
      clip: { succeeded: 1, refused: 0, skipped: 2, regenerated: 0 },
      // chair passes on its second take; vase is refused three times (1 + 2 retries).
      retry: { succeeded: 2, refused: 1, skipped: 0, regenerated: 3 },
      // clock passes on I4; bowl is flagged on I1 and on I4.
      fallback: { succeeded: 2, refused: 1, skipped: 0, regenerated: 2 },
    });
    expect(progress.steps.every((step) => step.failed === 0)).toBe(true);

    // The service's side: three refused prompts of vase, one each of watch and clock on I1; flagged
    // outputs of lamp, chair's first take, bowl on I1 and on I4. Nothing created twice.
    const ledger = h.emulator.ledger();
    expect({
      refused: ledger.refusedPrompts,
      flagged: ledger.flaggedOutputs,
      duplicates: ledger.duplicates,
    }).toEqual({
      refused: 5,
      flagged: 4,
      duplicates: 0,
    });
    // Paid, to the micro-dollar, what the service charged: refused prompts nothing, flagged outputs in full.
    expect(progress.spent).toBe(parseUsd(ledger.creditsCharged));
    // I1 $0.12 × (sneaker, lamp, mug, chair ×2, kettle, bowl) + I4 $0.03 × (clock, bowl) + V4 $0.25.
    expect(progress.spent).toBe(7 * 120_000 + 2 * 30_000 + 250_000);

    // The fallback's output says which model made it.
    const manifest = await h.manifest(plan);
    const clock = manifest.find((entry) => String(entry.name).includes('clock'));
    expect(clock).toMatchObject({ model: 'I4' });
    expect(manifest.filter((entry) => entry.step !== 'clip')).toHaveLength(5);

    // The records say which product the service keeps refusing, per step.
    const refusals = await readRefusals(plan.outputDir, plan.campaign);
    expect([...refusals.values()].flat()).toHaveLength(9);
    const retryJobs = plan.jobs.filter((job) => job.step === 'retry');
    expect(refusalRates(retryJobs, refusals)[0]).toEqual({
      axis: 'product',
      value: 'vase [refuse]',
      jobs: 1,
      refusedJobs: 1,
      refusals: 3,
    });

    // The report (the review page's twin) shows them: refused stills, their clips skipped, the rates.
    const load = await sourcesOf(plan, { readDecisions, progress: async () => progress });
    const { file, model } = await writeReport(await load());
    const stepCounts = Object.fromEntries(model.steps.map((step) => [step.id, step.counts]));
    expect(stepCounts.skip).toMatchObject({ done: 1, refused: 2 });
    expect(stepCounts.clip).toMatchObject({ done: 1, skipped: 2 });
    expect(stepCounts.fallback).toMatchObject({ done: 2, refused: 1 });
    const html = await readFile(file, 'utf8');
    expect(html).toContain(
      'refused by <strong>product</strong>: <span class="rate s-refused">vase [refuse] 1 of 1 (100 %, 3 refusals)</span>',
    );
  });
});

describe('timeout, end to end', () => {
  it('a prediction past its timeout is canceled upstream, retried per retries, then timed_out; its clip is skipped', async () => {
    const h = await harness({
      timeScale: 1,
      jitter: false,
      latencyMs: { I3: 120_000, I4: 20, V4: 20 },
    });
    const plan = await h.plan(`
version: 1
campaign: deadline
concurrency: 4
output: { dir: out }
steps:
  - id: slow
    model: I3
    retries: 1
    timeout: 1s
    input: { prompt: "A slow still" }
  - id: clip
    model: V4
    from: slow
    input: { prompt: "Orbit", start_image: "{{from.output}}", duration: "5" }
  - id: quick
    model: I4
    timeout: 1m
    input: { prompt: "A quick still" }
`);
    const progress = await h.run(plan);

    const byStep = Object.fromEntries(
      progress.steps.map((step) => [
        step.id,
        [step.succeeded, step.timed_out ?? 0, step.skipped, step.regenerated],
      ]),
    );
    expect(byStep).toEqual({ slow: [0, 1, 0, 1], clip: [0, 0, 1, 0], quick: [1, 0, 0, 0] });
    expect(progress.recentFailures.map((f) => f.message)).toEqual([
      expect.stringMatching(/^timed out: prediction \d+ ran past the step's timeout of 1s and was canceled$/),
    ]);
    const ledger = h.emulator.ledger();
    // Both takes of the slow still were canceled at the service (refunded), not left running.
    expect(ledger.canceledPredictions).toBe(2);
    expect(progress.spent).toBe(parseUsd(ledger.creditsCharged));
    expect(progress.spent).toBe(30_000);
  });
});

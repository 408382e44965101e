import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { attach, PlanMismatchError } from '../../worker/campaign-control.ts';
import { CHAINED_SPEC, harness } from './harness.ts';

async function sha256(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

describe('a chained campaign on Temporal and the emulator', () => {
  it('runs every job to a downloaded, checksummed file and records it in the manifest', async () => {
    const h = await harness();
    const plan = await h.plan(CHAINED_SPEC);
    const progress = await h.run(plan);

    expect(progress.outcome).toBe('completed');
    expect(progress.steps.map((s) => [s.id, s.succeeded, s.failed])).toEqual([
      ['hero', 2, 0],
      ['teaser', 4, 0],
    ]);
    // 2 × I1 at $0.12 + 2 × V4 standard 5 s at $0.25 + 2 × V4 pro 5 s at $0.65
    expect(progress.spent).toBe(2_040_000);
    expect(h.emulator.ledger().predictionsCreated).toBe(6);

    const manifest = await h.manifest(plan);
    expect(manifest).toHaveLength(6);
    for (const entry of manifest) {
      const file = join(plan.outputDir, String(entry.file));
      expect((await stat(file)).size).toBe(entry.bytes);
      expect(await sha256(file)).toBe(entry.sha256);
    }
    const teasers = manifest.filter((e) => e.step === 'teaser');
    // Each teaser was sent its own hero's picture: two teasers per picture.
    const heroUrls = manifest.filter((e) => e.step === 'hero').map((e) => e.output_url);
    const sentImages = await Promise.all(
      teasers.map(async (teaser) => {
        const response = await fetch(`${h.emulator.baseUrl}/predictions/${teaser.prediction_id}`, {
          headers: { authorization: `Bearer ${h.emulator.apiKey}` },
        });
        return ((await response.json()) as { input_parameters: { start_image: string } }).input_parameters
          .start_image;
      }),
    );
    expect(sentImages.sort()).toEqual([...heroUrls, ...heroUrls].sort());
    expect(teasers.every((e) => String(e.file).endsWith('.mp4'))).toBe(true);
  });

  it('re-running an unchanged spec creates nothing and costs nothing', async () => {
    const h = await harness();
    const plan = await h.plan(CHAINED_SPEC);
    await h.run(plan);
    const again = await h.run(plan);
    expect(again.outcome).toBe('completed');
    expect(again.spent).toBe(0);
    expect(again.steps.map((s) => s.cached)).toEqual([2, 4]);
    expect(h.emulator.ledger().predictionsCreated).toBe(6);
  });

  it('editing one prompt regenerates only that job and its descendants', async () => {
    const h = await harness();
    const scenes = (watchScene: string) =>
      CHAINED_SPEC.replace(
        'matrix: { product: [sneaker, watch] }',
        `matrix: { product: [sneaker, watch], include: [{ product: sneaker, scene: marble }, { product: watch, scene: ${watchScene} }] }`,
      ).replace('"Acme {{product}} on marble"', '"Acme {{product}} on {{scene}}"');
    await h.run(await h.plan(scenes('marble')));
    const progress = await h.run(await h.plan(scenes('slate')));
    // The watch hero changed, so its 2 teasers change too; the sneaker's 3 jobs are reused.
    expect(progress.steps.map((s) => [s.succeeded, s.cached])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(h.emulator.ledger().predictionsCreated).toBe(9);
  });
});

describe('attaching', () => {
  it('attaches to the running campaign of the same spec, and refuses an edited one', async () => {
    const h = await harness();
    const plan = await h.plan(CHAINED_SPEC);
    const handle = await h.start(plan); // no worker: it stays running
    onTestFinished(async () => {
      await handle.terminate().catch(() => {});
    });
    await expect(attach(h.temporal, plan)).resolves.toBeDefined();
    const edited = await h.plan(CHAINED_SPEC.replace('on marble', 'on slate'));
    await expect(attach(h.temporal, edited)).rejects.toBeInstanceOf(PlanMismatchError);
  });
});

describe('money', () => {
  it('stops submitting at the budget and never spends past it', async () => {
    const h = await harness();
    // 6 jobs cost $2.04 (heroes $0.12, standard teasers $0.25, pro teasers $0.65): $1.00 fits some.
    const plan = await h.plan(CHAINED_SPEC.replace('max_usd: 10', 'max_usd: 1'));
    const progress = await h.run(plan);
    expect(progress.outcome).toBe('budget_reached');
    expect(progress.spent).toBeLessThanOrEqual(1_000_000);
    expect(parseUsd(h.emulator.ledger().creditsCharged)).toBe(progress.spent);
    // Submission stopped at a job that did not fit, so less than its price ($0.65 at most) was left.
    expect(progress.spent).toBeGreaterThan(1_000_000 - 650_000);
    const done = progress.steps.reduce((n, s) => n + s.succeeded, 0);
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(6);
  });
});

describe('failures', () => {
  it('regenerates failed predictions up to retries, then fails the job and skips its descendants', async () => {
    const h = await harness({ faults: { failRate: 1 } });
    const plan = await h.plan(CHAINED_SPEC.replace('  - id: hero\n', '  - id: hero\n    retries: 2\n'));
    const progress = await h.run(plan);
    expect(progress.outcome).toBe('completed');
    const [hero, teaser] = progress.steps;
    expect(hero).toMatchObject({ failed: 2, regenerated: 4, created: 6, succeeded: 0 });
    expect(teaser).toMatchObject({ skipped: 4, created: 0 });
    expect(progress.recentFailures[0]!.message.length).toBeGreaterThan(0);
    expect(h.emulator.ledger().predictionsCreated).toBe(6);
  });

  it('rides out 5xx replies and 429s without failing a job or creating a duplicate', async () => {
    const h = await harness({ faults: { serverErrorRate: 0.3 }, limits: { createsPerMinute: 120 }, seed: 7 });
    const plan = await h.plan(CHAINED_SPEC);
    const progress = await h.run(plan);
    expect(progress.recentFailures).toEqual([]);
    expect(progress.steps.map((s) => s.succeeded)).toEqual([2, 4]);
    const ledger = h.emulator.ledger();
    expect(ledger.predictionsCreated).toBe(6);
    expect(ledger.duplicates).toBe(0);
    const statuses = Object.values(ledger.requests).flatMap((byStatus) => Object.keys(byStatus));
    expect(statuses.some((status) => status.startsWith('5'))).toBe(true);
  });
});

describe('secrets', () => {
  it('never writes the API key into workflow history', async () => {
    const h = await harness({ apiKey: 'sk-test-secret-0123456789' });
    const plan = await h.plan(CHAINED_SPEC);
    await h.run(plan);
    const handle = h.temporal.workflow.getHandle(`mediaflow-${plan.campaign}`);
    const history = JSON.stringify(await handle.fetchHistory());
    expect(history.length).toBeGreaterThan(1_000);
    expect(history).not.toContain('sk-test-secret-0123456789');
  });
});

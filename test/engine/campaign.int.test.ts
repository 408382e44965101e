import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { attach, PlanMismatchError } from '../../control/campaign.ts';
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
    const h = await harness({
      faults: { serverErrorRate: 0.3 },
      limits: { createsPerMinute: 6_000 },
      seed: 7,
    });
    const plan = await h.plan(CHAINED_SPEC);
    // Pacing to the limits it read, the engine meets no 429 on its own: cut the limit to one
    // create a second right after it read them, as a service under load may.
    const progress = await h.run(plan, async () => {
      while (!h.emulator.ledger().requests['GET /v1/account/rate-limits']?.['200']) {
        await new Promise((r) => setTimeout(r, 2));
      }
      h.emulator.setLimits({ createsPerMinute: 60 });
    });
    expect(progress.recentFailures).toEqual([]);
    expect(progress.steps.map((s) => s.succeeded)).toEqual([2, 4]);
    const ledger = h.emulator.ledger();
    expect(ledger.predictionsCreated).toBe(6);
    expect(ledger.duplicates).toBe(0);
    const statuses = Object.values(ledger.requests).flatMap((byStatus) => Object.keys(byStatus));
    expect(statuses.some((status) => status.startsWith('5'))).toBe(true);
    // The test is named for 429s: it must have met some, else it proves nothing about them.
    expect(ledger.rateLimited).toBeGreaterThan(0);
    expect(statuses).toContain('429');
  });
});

describe('secrets', () => {
  it('never writes the API key into workflow history, worker logs or error messages', async () => {
    const secret = 'sk-test-secret-0123456789';
    // 5xx replies and failed predictions, so failures (their messages and stacks) reach the
    // worker's log and the history too.
    const h = await harness({ apiKey: secret, faults: { serverErrorRate: 0.2, failRate: 0.3 }, seed: 5 });
    const plan = await h.plan(CHAINED_SPEC.replace('  - id: hero\n', '  - id: hero\n    retries: 0\n'));
    const handle = await h.start(plan);
    // A real `mediaflow worker` process, so its whole output (every log level it prints) is read.
    const worker = h.spawnWorker();
    const progress = await handle.result();
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));

    const texts = historyTexts(await handle.fetchHistory());
    const history = texts.join('\n');
    // The decoding works: the workflow's input and result are read back as text.
    expect(history).toContain(plan.outputDir);
    expect(history).toContain('"outcome":"completed"');
    const failures = progress.recentFailures.map((f) => f.message);
    expect(failures.length).toBeGreaterThan(0);
    const logs = (await readdir(h.dir)).filter((f) => /^worker-\d+\.log$/.test(f));
    const log = (await Promise.all(logs.map((f) => readFile(join(h.dir, f), 'utf8')))).join('\n');
    expect(log).toContain(h.taskQueue);

    const places: [string, string][] = [
      ['history', history],
      ['worker log', log],
      ['failure messages', failures.join('\n')],
    ];
    for (const [where, text] of places) {
      expect(text.includes(secret), `the API key appears in the ${where}`).toBe(false);
    }
  });
});

/**
 * Every text a history holds, payloads decoded: each payload through the SDK's default payload
 * converter (JSON, plain text) and as UTF-8 bytes, besides every string field (failure
 * messages and stack traces included). A search of the history's JSON would see payload bytes as
 * base64 or as number arrays, where no secret could ever be found.
 */
function historyTexts(history: unknown): string[] {
  const texts: string[] = [];
  const visit = (node: unknown): void => {
    if (typeof node === 'string') {
      texts.push(node);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (node instanceof Uint8Array) {
      texts.push(Buffer.from(node).toString('utf8'));
      return;
    }
    if ('data' in node && 'metadata' in node && node.data instanceof Uint8Array) {
      try {
        texts.push(JSON.stringify(defaultPayloadConverter.fromPayload(node as Payload)));
      } catch {
        // Not one the default converter reads: its raw bytes are searched below.
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(history);
  return texts;
}

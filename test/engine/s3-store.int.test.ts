/**
 * The engine on an S3 output location (the suite's versitygw), where a folder's conveniences do
 * not exist: cancel finds the claims as objects, and an output lost from the bucket is made again
 * and recorded beside the first record (the chain of records), then counted done.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../records/manifest.ts';
import { openStore } from '../../store/index.ts';
import { s3Env, uniqueS3Url } from '../helpers/s3-store.ts';
import { harness } from './harness.ts';

const spec = (output: string, clips: boolean) => `
version: 1
campaign: s3-engine
budget: { max_usd: 10 }
concurrency: 8
output: { dir: ${output} }
steps:
  - id: still
    model: I4
    matrix: { product: [a, b, c, d] }
    input: { prompt: "Studio shot of product {{product}}" }
${
  clips
    ? `  - id: clip
    model: V6
    from: still
    input: { prompt: "Product {{product}} turning slowly", first_frame_image: "{{from.output}}" }
`
    : ''
}`;

// The in-process worker and storePlan reach the bucket as a deployed worker does: through the
// AWS SDK's environment (this file's own process; the store's shared client is made on first use).
const saved = { ...process.env };
beforeAll(() => Object.assign(process.env, s3Env()));
afterAll(() => {
  for (const name of Object.keys(s3Env())) if (saved[name] === undefined) delete process.env[name];
});

describe('the engine on S3', () => {
  it('cancels upstream the predictions it claimed in the bucket, and keeps the outputs made', async () => {
    const h = await harness({ latencyMs: { I4: 100, V6: 30_000 }, jitter: false, timeScale: 1 });
    const plan = await h.plan(spec(uniqueS3Url('cancel'), true));
    const progress = await h.run(plan, async (handle) => {
      // Every still made (clips are created only from a recorded still) and every clip in flight.
      while (h.emulator.ledger().predictionsCreated < 8) await sleep(50);
      await handle.cancel();
    });

    expect(progress.outcome).toBe('canceled');
    expect(h.emulator.ledger().canceledPredictions).toBe(4);
    const recorded = await (await Manifest.open(plan.outputDir)).recorded();
    expect(recorded.map((entry) => entry.step)).toEqual(['still', 'still', 'still', 'still']);
  }, 120_000);

  it('makes an output lost from the bucket again, records it beside the first, then counts it done', async () => {
    const h = await harness();
    const plan = await h.plan(spec(uniqueS3Url('lost'), false));
    expect((await h.run(plan)).outcome).toBe('completed');
    const store = openStore(plan.outputDir);
    const [lost] = await (await Manifest.open(plan.outputDir)).recorded();
    await store.remove(lost!.file);

    expect((await h.run(plan)).outcome).toBe('completed');
    expect(h.emulator.ledger().predictionsCreated).toBe(5);
    const again = await Manifest.open(plan.outputDir);
    const latest = await again.get(lost!.key);
    expect(latest?.prediction_id).not.toBe(lost!.prediction_id);
    expect(await store.stat(lost!.file)).toEqual({ bytes: latest!.bytes });
    expect((await again.recorded()).filter((entry) => entry.key === lost!.key)).toHaveLength(2);

    expect((await h.run(plan)).outcome).toBe('completed');
    expect(h.emulator.ledger().predictionsCreated).toBe(5);
  }, 120_000);
});

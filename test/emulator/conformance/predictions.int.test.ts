import { describe, expect, it } from 'vitest';
import { MODELS } from '../../../api/catalogue/index.ts';
import { collect, freshKey, serviceError, useEmulator } from './harness.ts';

const instant = useEmulator();
/** Predictions that stay `processing` for an hour: for cancel and live streams. */
const slow = useEmulator({ timeScale: 1, latencyMs: 3_600_000 });

async function settled(id: string) {
  const [last] = (await collect(instant.client.predictions.stream(id))).slice(-1);
  return last!;
}

describe('POST /v1/{owner}/{model}/predictions', () => {
  it('creates a processing prediction charged at the catalogue price', async () => {
    const prediction = await instant.client.predictions.create(
      'V4',
      { prompt: 'orbit', start_image: 'https://example.com/a.png', mode: 'pro', duration: '10' },
      { idempotencyKey: freshKey() },
    );
    expect(prediction).toMatchObject({ status: 'processing', model: 'mf-v4', modelVersion: 'v4-base' });
    expect(prediction.creditsUsed).toBe(MODELS.V4.price({ mode: 'pro', duration: '10' }));
    expect(prediction.id).toMatch(/^\d+$/);
  });

  it('the same Idempotency-Key and body returns the same prediction and charges once', async () => {
    const key = freshKey();
    const before = await instant.client.account.balance();
    const first = await instant.client.predictions.create('I1', { prompt: 'one' }, { idempotencyKey: key });
    const again = await instant.client.predictions.create('I1', { prompt: 'one' }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    const after = await instant.client.account.balance();
    expect(before.credits - after.credits).toBe(MODELS.I1.price({}));
    expect(instant.emulator.ledger().byIdempotencyKey[key]).toBe(1);
  });

  it('409 when the Idempotency-Key is reused with another body', async () => {
    const key = freshKey();
    await instant.client.predictions.create('I1', { prompt: 'one' }, { idempotencyKey: key });
    const error = await serviceError(() =>
      instant.client.predictions.create('I1', { prompt: 'two' }, { idempotencyKey: key }),
    );
    expect(error).toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
      retryable: false,
      maybeCreated: false,
    });
  });

  it('400 names the field and its allowed values', async () => {
    const error = await serviceError(() =>
      instant.client.predictions.create(
        'I1',
        { prompt: 'x', aspect_ratio: '2:1' },
        { idempotencyKey: freshKey() },
      ),
    );
    expect(error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', allowed: ['1:1', '16:9', '9:16'] });
    expect(error.param).toContain('aspect_ratio');
    expect(error.message).toMatch(/aspect_ratio.*"1:1", "16:9", "9:16"/);
  });
});

describe('402 when the balance cannot pay', () => {
  const poor = useEmulator({ credits: '0.10' });
  it('refuses the create, names the price and charges nothing', async () => {
    const error = await serviceError(() =>
      poor.client.predictions.create('I1', { prompt: 'x' }, { idempotencyKey: freshKey() }),
    );
    expect(error).toMatchObject({
      status: 402,
      code: 'INSUFFICIENT_CREDITS',
      retryable: false,
      maybeCreated: false,
    });
    expect(error.message).toContain('0.12');
    expect((await poor.client.account.balance()).credits).toBe(100_000);
  });
});

describe('GET /v1/predictions/:id and the stream', () => {
  it('a created prediction succeeds with an output under the CDN', async () => {
    const created = await instant.client.predictions.create(
      'I2',
      { prompt: 'x' },
      { idempotencyKey: freshKey() },
    );
    const done = await settled(created.id);
    expect(done.status).toBe('succeeded');
    const got = await instant.client.predictions.get(created.id);
    expect(got).toMatchObject({ id: created.id, status: 'succeeded' });
    expect(got.outputs[0]!.startsWith(instant.emulator.cdnUrl)).toBe(true);
  });

  it('404 for a prediction that does not exist, on get, stream and cancel', async () => {
    for (const call of [
      () => instant.client.predictions.get('987654'),
      () => collect(instant.client.predictions.stream('987654')),
      () => instant.client.predictions.cancel('987654'),
    ]) {
      expect(await serviceError(call)).toMatchObject({ status: 404, retryable: false });
    }
  });

  it('the stream reports processing, then the terminal status of a cancel, then ends', async () => {
    const created = await slow.client.predictions.create(
      'V6',
      { prompt: 'x' },
      { idempotencyKey: freshKey() },
    );
    const seen: string[] = [];
    for await (const prediction of slow.client.predictions.stream(created.id)) {
      seen.push(prediction.status);
      if (prediction.status === 'processing') await slow.client.predictions.cancel(created.id);
    }
    expect(seen).toEqual(['processing', 'canceled']);
  });
});

describe('POST /v1/predictions/:id/cancel', () => {
  it('cancels a processing prediction and refunds it', async () => {
    const before = await slow.client.account.balance();
    const created = await slow.client.predictions.create(
      'V6',
      { prompt: 'x' },
      { idempotencyKey: freshKey() },
    );
    const canceled = await slow.client.predictions.cancel(created.id);
    expect(canceled).toMatchObject({ id: created.id, status: 'canceled', creditsUsed: 0 });
    expect((await slow.client.account.balance()).credits).toBe(before.credits);
  });

  it('409 when the prediction has already finished', async () => {
    const created = await instant.client.predictions.create(
      'I4',
      { prompt: 'x' },
      { idempotencyKey: freshKey() },
    );
    await settled(created.id);
    const error = await serviceError(() => instant.client.predictions.cancel(created.id));
    expect(error).toMatchObject({ status: 409, code: 'NOT_CANCELABLE', retryable: false });
  });
});

describe('batches', () => {
  it('creates each item with its own idempotency key and reports per-item errors', async () => {
    const keys = [freshKey(), freshKey()];
    const result = await instant.client.batches.create([
      { model: 'I1', input: { prompt: 'a' }, idempotencyKey: keys[0]! },
      {
        model: 'V3',
        input: { prompt: 'b', seconds: '5', aspect_ratio: 'portrait' },
        idempotencyKey: keys[1]!,
      },
    ]);
    expect(result.items).toHaveLength(2);
    expect(result.items[0]!.prediction?.status).toBe('processing');
    expect(result.items[1]!.error).toMatchObject({
      code: 'INVALID_PARAMETER',
      retryable: false,
      allowed: ['4', '8', '12'],
    });
    const again = await instant.client.batches.get(result.id);
    expect(again.id).toBe(result.id);
    expect(again.items[0]!.prediction?.id).toBe(result.items[0]!.prediction?.id);
    // Replaying the batch creates nothing new: the item keys are honoured.
    const replay = await instant.client.batches.create([
      { model: 'I1', input: { prompt: 'a' }, idempotencyKey: keys[0]! },
    ]);
    expect(replay.items[0]!.prediction?.id).toBe(result.items[0]!.prediction?.id);
  });

  it('404 for an unknown batch', async () => {
    expect(await serviceError(() => instant.client.batches.get('batch_nope'))).toMatchObject({ status: 404 });
  });
});

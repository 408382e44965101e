import { describe, expect, it } from 'vitest';
import { MODEL_LABELS, MODELS, ModelPaths } from '../../../api/catalogue/index.ts';
import { collect, freshKey, serviceError, useEmulator } from './harness.ts';

const contract = useEmulator();
const paths = new ModelPaths();

describe('models', () => {
  it('lists the 11 models across pages and gets one by label or by id', async () => {
    const models = await collect(contract.client.models.list({ limit: 4 }));
    expect(models.map((m) => m.id).sort()).toEqual(MODEL_LABELS.map((label) => paths.idOf(label)).sort());
    const byLabel = await contract.client.models.get('V2');
    const byId = await contract.client.models.get(paths.idOf('V2'));
    expect(byLabel).toEqual(byId);
    expect(byLabel).toMatchObject({ kind: 'video', owner: 'mf-v2' });
  });

  it('404 for an unknown model', async () => {
    expect(await serviceError(() => contract.client.models.get('nobody/nothing'))).toMatchObject({
      status: 404,
    });
  });
});

describe('files', () => {
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

  it('upload, get, list, delete; the URL works as an image input', async () => {
    const { client } = contract;
    const file = await client.files.upload({ filename: 'ref.png', contentType: 'image/png', data: bytes });
    expect(file).toMatchObject({ filename: 'ref.png', content_type: 'image/png', bytes: bytes.length });
    expect(await client.files.get(file.id)).toEqual(file);
    expect((await collect(client.files.list())).map((f) => f.id)).toContain(file.id);
    // Uploads are served to the key's holder only (docs/service-assumptions.md, "Files").
    expect((await fetch(file.url)).status).toBe(401);
    const download = await fetch(file.url, {
      headers: { authorization: `Bearer ${contract.emulator.apiKey}` },
    });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    const prediction = await client.predictions.create(
      'I1',
      { prompt: 'like this', input_image: file.url },
      { idempotencyKey: freshKey() },
    );
    expect(prediction.status).toBe('processing');
    await client.files.delete(file.id);
    expect(await serviceError(() => client.files.get(file.id))).toMatchObject({ status: 404 });
    expect(await serviceError(() => client.files.delete(file.id))).toMatchObject({ status: 404 });
  });

  it('400 for a bad content type, naming the field', async () => {
    const error = await serviceError(() =>
      contract.client.files.upload({ filename: 'x', contentType: 'not a type', data: bytes }),
    );
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.param).toContain('content_type');
  });
});

describe('webhooks', () => {
  it('create returns the signing secret once; list shows the hook without it', async () => {
    const hook = await contract.client.webhooks.create({
      url: 'http://127.0.0.1:9/hooks',
      events: ['prediction.failed'],
    });
    expect(hook.secret).toMatch(/^whsec_/);
    const listed = (await collect(contract.client.webhooks.list())).find((h) => h.id === hook.id);
    expect(listed).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['prediction.failed'] });
    expect(listed?.secret).toBeUndefined();
  });

  it('400 for an unknown event kind, listing the allowed ones', async () => {
    const error = await serviceError(() =>
      contract.client.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['prediction.exploded'] }),
    );
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.allowed).toEqual(['prediction.succeeded', 'prediction.failed', 'prediction.canceled']);
  });
});

describe('account', () => {
  it('balance, usage and account agree with what was spent', async () => {
    const { client } = contract;
    const before = await client.account.balance();
    const usageBefore = await client.account.usage();
    await client.predictions.create('I5', { prompt: 'x' }, { idempotencyKey: freshKey() });
    const after = await client.account.balance();
    const usage = await client.account.usage();
    expect(before.credits - after.credits).toBe(MODELS.I5.price({}));
    expect(after.currency).toBe('USD');
    expect(usage.credits - usageBefore.credits).toBe(MODELS.I5.price({}));
    expect(usage.byModel.find((row) => row.model === paths.idOf('I5'))?.predictions).toBeGreaterThanOrEqual(
      1,
    );
    expect((await client.account.get()).id).toBeTruthy();
  });

  it('rate limits report the configured limits and what is left', async () => {
    const limits = await contract.client.account.rateLimits();
    expect(limits).toMatchObject({
      creates_per_minute: 600_000,
      requests_per_minute: 6_000_000,
      max_in_flight: 50,
    });
    expect(limits.remaining?.requests).toBeLessThanOrEqual(100_000);
  });
});

describe('API keys', () => {
  it('a created key works; rotating it retires the old secret; deleting it retires the key', async () => {
    const { client } = contract;
    const created = await client.apiKeys.create('ci');
    expect(created.key).toBeTruthy();
    const listed = (await collect(client.apiKeys.list())).find((k) => k.id === created.id);
    expect(listed).toMatchObject({ name: 'ci', prefix: created.key!.slice(0, listed!.prefix.length) });
    expect(listed?.key).toBeUndefined();
    await expect(contract.clientWithKey(created.key!).account.balance()).resolves.toBeDefined();

    const rotated = await client.apiKeys.rotate(created.id);
    expect(rotated.id).toBe(created.id);
    expect(rotated.key).not.toBe(created.key);
    const old = await serviceError(() => contract.clientWithKey(created.key!).account.balance());
    expect(old).toMatchObject({ status: 401 });
    await expect(contract.clientWithKey(rotated.key!).account.balance()).resolves.toBeDefined();

    await client.apiKeys.delete(created.id);
    expect(await serviceError(() => contract.clientWithKey(rotated.key!).account.balance())).toMatchObject({
      status: 401,
    });
    expect(await serviceError(() => client.apiKeys.rotate(created.id))).toMatchObject({ status: 404 });
    expect(await serviceError(() => client.apiKeys.delete(created.id))).toMatchObject({ status: 404 });
  });

  it('400 for a key without a name', async () => {
    const error = await serviceError(() => contract.client.apiKeys.create(''));
    expect(error).toMatchObject({ status: 400, param: 'name' });
  });
});

describe('utilities', () => {
  it('health says ok', async () => {
    expect((await contract.client.health()).status).toMatch(/^ok$/i);
  });

  it('estimate equals the catalogue price for every model with a published rule', async () => {
    for (const label of MODEL_LABELS) {
      const input = { prompt: 'x', ...requiredExtras(label) };
      const estimate = await contract.client.estimate(label, input);
      const local = MODELS[label].price(input);
      if (local !== null) expect(estimate, label).toBe(local);
      else expect(estimate, label).toBeGreaterThan(0);
    }
  });

  it('estimate rejects a bad input like create does', async () => {
    const error = await serviceError(() => contract.client.estimate('V2', { prompt: 'x', duration: '5' }));
    expect(error).toMatchObject({ status: 400, allowed: ['4', '6', '8'] });
  });

  it('search finds models by name and predictions by model', async () => {
    const created = await contract.client.predictions.create(
      'I3',
      { prompt: 'x' },
      { idempotencyKey: freshKey() },
    );
    const models = await collect(contract.client.search('i3', { type: 'models' }));
    expect(models.map((r) => r.id)).toContain(paths.idOf('I3'));
    const predictions = await collect(contract.client.search('', { type: 'predictions', model: 'I3' }));
    expect(predictions.map((r) => r.id)).toContain(created.id);
    expect(predictions.every((r) => r.type === 'predictions')).toBe(true);
  });

  it('400 for a bad search type', async () => {
    const error = await serviceError(() =>
      collect(contract.client.search('x', { type: 'files' as 'models' })),
    );
    expect(error).toMatchObject({ status: 400, allowed: ['models', 'predictions'] });
  });
});

function requiredExtras(label: string): Record<string, string> {
  if (label === 'V3') return { seconds: '8', aspect_ratio: 'landscape' };
  if (label === 'V4') return { start_image: 'https://example.com/a.png' };
  return {};
}

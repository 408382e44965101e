import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../emulator/openapi.ts';
import { createBody, I1, useEmulator } from './helpers.ts';

describe('catalogue, search, ledger and OpenAPI', () => {
  const { call, emulator } = useEmulator();

  it('lists the 11 models with their input schema and pricing, page by page', async () => {
    const first = await call('GET', '/models?limit=6');
    expect(first.body.data).toHaveLength(6);
    expect(first.body.has_more).toBe(true);
    const second = await call('GET', `/models?limit=6&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data).toHaveLength(5);
    const v3 = (await call('GET', '/models/mf-v3%2Fv3-base')).body;
    expect(v3).toMatchObject({
      id: 'mf-v3/v3-base',
      kind: 'video',
      pricing: expect.stringContaining('0.15'),
    });
    expect(v3.input_schema.required).toEqual(['prompt', 'seconds', 'aspect_ratio']);
    expect((await call('GET', '/models/mf-v3/v3-base')).body.id).toBe('mf-v3/v3-base');
  });

  it('finds predictions by prompt, model and time with their input as sent', async () => {
    const start = new Date().toISOString();
    await call('POST', I1, createBody({ prompt: 'Needle in a haystack', aspect_ratio: '9:16' }));
    await call('POST', '/mf-i4/i4-base/predictions', createBody({ prompt: 'another needle' }));
    const all = await call('GET', '/search?q=NEEDLE');
    expect(all.body.data).toHaveLength(2);
    const filtered = await call(
      'GET',
      `/search?q=needle&model=mf-i1%2Fi1-base&created_after=${encodeURIComponent(start)}`,
    );
    expect(filtered.body.data).toHaveLength(1);
    expect(filtered.body.data[0].prediction.input_parameters).toEqual({
      prompt: 'Needle in a haystack',
      aspect_ratio: '9:16',
    });
    const models = await call('GET', '/search?type=models&q=video');
    expect(models.body.data).toHaveLength(6);
  });

  it('keeps a ledger of requests by route pattern and status', async () => {
    await call('GET', '/predictions/424242');
    const ledger = emulator().ledger();
    expect(ledger.requests['GET /v1/predictions/{id}']).toEqual({ '404': 1 });
    expect(ledger.requests['POST /v1/{owner}/{model}/predictions']!['200']).toBe(2);
    expect(ledger.byModel).toEqual({ I1: 1, I4: 1 });
    expect(ledger.creditsCharged).toBe('0.15');
    const viaHttp = await fetch(`${new URL(emulator().baseUrl).origin}/_emulator/ledger`);
    expect(((await viaHttp.json()) as { predictionsCreated: number }).predictionsCreated).toBe(2);
  });

  it('changes faults and limits over HTTP for a CLI-run emulator', async () => {
    const origin = new URL(emulator().baseUrl).origin;
    const post = (path: string, body: unknown) =>
      fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(await (await post('/_emulator/limits', { maxInFlight: 7 })).json()).toMatchObject({
      maxInFlight: 7,
    });
    expect((await call('GET', '/account/rate-limits')).body.max_in_flight).toBe(7);
    expect((await post('/_emulator/faults', { failRate: 2 })).status).toBe(400);
    expect(await (await post('/_emulator/faults', { failRate: 0 })).json()).toMatchObject({ failRate: 0 });
  });

  it('serves an OpenAPI 3.1 document with every endpoint of part 4.1, to a key holder', async () => {
    expect((await call('GET', '/openapi.json', undefined, { key: null })).status).toBe(401);
    const doc = (await call('GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((m) => `${m} ${path}`),
    );
    expect(operations).toHaveLength(25);
    expect(ENDPOINTS).toHaveLength(25);
    expect(
      doc.paths['/v1/{owner}/{model}/predictions'].post.requestBody.content['application/json'].schema
        .required,
    ).toEqual(['input', 'image_count']);
    expect(doc.components.schemas.V3Input.required).toEqual(['prompt', 'seconds', 'aspect_ratio']);
  });

  it('answers health without a key', async () => {
    expect((await call('GET', '/health', undefined, { key: null })).body.status).toBe('ok');
  });
});

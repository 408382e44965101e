import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../emulator/openapi/endpoints.ts';
import { createBody, I1, type Json, useEmulator } from './helpers.ts';

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
    // Part 4.1's 25, create as one operation per model (11 for 1), and DELETE /v1/webhooks/{id}.
    expect(ENDPOINTS).toHaveLength(26);
    expect(operations).toHaveLength(36);
    const create = doc.paths['/v1/mf-v3/v3-base/predictions'].post;
    const body = create.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['input', 'image_count']);
    expect(body.properties.input).toEqual({ $ref: '#/components/schemas/V3Input' });
    expect(doc.components.schemas.V3Input.required).toEqual(['prompt', 'seconds', 'aspect_ratio']);
  });

  it('documents what the emulator does: integer limits, base64 files, stream events, every status', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const limit = doc.paths['/v1/files'].get.parameters.find((p: Json) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    const upload = doc.paths['/v1/files'].post.requestBody.content['application/json'].schema;
    expect(upload.properties.data.contentEncoding).toBe('base64');
    const stream = doc.paths['/v1/predictions/{id}/stream'].get.responses['200'].content['text/event-stream'];
    expect(stream.schema.oneOf.map((e: Json) => e.properties.event.const)).toEqual(['status', 'done']);
    expect(stream.schema.oneOf[0].properties.data.contentSchema).toEqual({
      $ref: '#/components/schemas/StreamStatusEvent',
    });
    const responses = doc.paths['/v1/mf-i1/i1-base/predictions'].post.responses;
    expect(Object.keys(responses)).toEqual([
      '200',
      '400',
      '401',
      '402',
      '404',
      '409',
      '413',
      '415',
      '429',
      '503',
    ]);
    expect(Object.keys(doc.paths['/v1/api-keys/{id}'].delete.responses)).toContain('409');
    expect(doc.paths['/v1/webhooks/{id}'].delete).toBeDefined();
    const estimate = doc.paths['/v1/estimate'].post.requestBody.content['application/json'].schema;
    expect(estimate.oneOf[0].properties).toMatchObject({
      model: { const: 'mf-v1/v1-base' },
      input: { $ref: '#/components/schemas/V1Input' },
    });
  });

  it('answers health without a key', async () => {
    expect((await call('GET', '/health', undefined, { key: null })).body.status).toBe('ok');
  });
});

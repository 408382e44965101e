import { describe, expect, it } from 'vitest';
import { I1, type Json, useEmulator, V1 } from './helpers.ts';

type Row = [
  what: string,
  method: string,
  path: string,
  body: unknown,
  status: number,
  code: string,
  headers?: Record<string, string>,
];

const ROWS: Row[] = [
  ['bad JSON', 'POST', I1, '{"input":', 400, 'INVALID_JSON'],
  ['a JSON array', 'POST', I1, '[1,2]', 400, 'INVALID_REQUEST'],
  ['no body', 'POST', I1, undefined, 400, 'INVALID_REQUEST'],
  [
    'wrong content type',
    'POST',
    I1,
    'prompt=x',
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    { 'content-type': 'text/plain' },
  ],
  [
    'a huge body',
    'POST',
    I1,
    JSON.stringify({ input: { prompt: 'x'.repeat(2_000_000) }, image_count: 1 }),
    413,
    'PAYLOAD_TOO_LARGE',
  ],
  ['input not an object', 'POST', I1, { input: 'x', image_count: 1 }, 400, 'INVALID_PARAMETER'],
  ['image_count 2', 'POST', I1, { input: { prompt: 'x' }, image_count: 2 }, 400, 'INVALID_PARAMETER'],
  ['missing prompt', 'POST', I1, { input: {}, image_count: 1 }, 400, 'MISSING_PARAMETER'],
  ['prompt a number', 'POST', I1, { input: { prompt: 5 }, image_count: 1 }, 400, 'INVALID_PARAMETER'],
  [
    'bad enum',
    'POST',
    V1,
    { input: { prompt: 'x', resolution: '720p' }, image_count: 1 },
    400,
    'INVALID_PARAMETER',
  ],
  [
    'numeric enum as number',
    'POST',
    V1,
    { input: { prompt: 'x', duration: 5 }, image_count: 1 },
    400,
    'INVALID_PARAMETER',
  ],
  [
    'unknown parameter',
    'POST',
    I1,
    { input: { prompt: 'x', seed: '1' }, image_count: 1 },
    400,
    'UNKNOWN_PARAMETER',
  ],
  [
    'unknown model',
    'POST',
    '/acme/nope/predictions',
    { input: { prompt: 'x' }, image_count: 1 },
    404,
    'MODEL_NOT_FOUND',
  ],
  [
    'oversized Idempotency-Key',
    'POST',
    I1,
    { input: { prompt: 'x' }, image_count: 1 },
    400,
    'INVALID_PARAMETER',
    { 'idempotency-key': 'k'.repeat(300) },
  ],
  ['bad cursor', 'GET', '/files?cursor=%%%', undefined, 400, 'INVALID_CURSOR'],
  ['limit above 100', 'GET', '/models?limit=101', undefined, 400, 'INVALID_PARAMETER'],
  ['limit not a number', 'GET', '/api-keys?limit=ten', undefined, 400, 'INVALID_PARAMETER'],
  ['empty batch', 'POST', '/predictions/batch', { requests: [] }, 400, 'INVALID_PARAMETER'],
  ['batch of 101', 'POST', '/predictions/batch', { requests: Array(101).fill({}) }, 400, 'INVALID_PARAMETER'],
  ['unknown batch', 'GET', '/predictions/batch/batch_999', undefined, 404, 'NOT_FOUND'],
  ['estimate of unknown model', 'POST', '/estimate', { model: 'a/b', input: {} }, 404, 'MODEL_NOT_FOUND'],
  ['webhook url not a URL', 'POST', '/webhooks', { url: 'nope' }, 400, 'INVALID_PARAMETER'],
  [
    'webhook unknown event',
    'POST',
    '/webhooks',
    { url: 'http://127.0.0.1:9/x', events: ['x'] },
    400,
    'INVALID_PARAMETER',
  ],
  ['api key without name', 'POST', '/api-keys', {}, 400, 'MISSING_PARAMETER'],
  ['search with bad type', 'GET', '/search?type=files', undefined, 400, 'INVALID_PARAMETER'],
  ['search with bad date', 'GET', '/search?created_after=yesterday', undefined, 400, 'INVALID_PARAMETER'],
  ['unknown endpoint', 'GET', '/nothing/here', undefined, 404, 'NOT_FOUND'],
  [
    'file too large',
    'POST',
    '/files',
    { filename: 'a', content_type: 'image/png', data: 'A'.repeat(14_000_000) },
    413,
    'PAYLOAD_TOO_LARGE',
  ],
];

describe('bad requests', () => {
  const { call } = useEmulator();

  it.each(ROWS)(
    '%s: the right status and code, never a 500',
    async (_what, method, path, body, status, code, headers) => {
      const reply = await call(method, path, body, { headers: headers ?? {} });
      expect(reply.status).toBe(status);
      expect(reply.body.error).toMatchObject({ code, type: expect.any(String), message: expect.any(String) });
    },
  );

  it('says where a body is not JSON without quoting it: it may hold a secret or markup', async () => {
    const body = '{"input": {"prompt": mfk_secret_of_someone <script>}}';
    const reply = await call('POST', I1, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('INVALID_JSON');
    expect(reply.body.error.message).toMatch(/^the body is not valid JSON/);
    for (const part of ['mfk_secret', '<script>', 'prompt'])
      expect(reply.body.error.message).not.toContain(part);
  });

  it('names the field and the allowed values', async () => {
    const reply = await call('POST', V1, { input: { prompt: 'x', aspect_ratio: '2:1' }, image_count: 1 });
    expect(reply.body.error).toMatchObject({
      param: 'input.aspect_ratio',
      allowed: ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', '9:21'],
    });
    expect(reply.body.error.message).toContain('aspect_ratio must be one of "16:9"');
    const unknown = await call('POST', I1, { input: { prompt: 'x', seed: '1' }, image_count: 1 });
    expect(unknown.body.error.message).toContain('its parameters are: prompt, input_image, aspect_ratio');
    const model = await call('POST', '/acme/nope/predictions', { input: { prompt: 'x' }, image_count: 1 });
    expect(model.body.error.message).toContain('mf-v1/v1-base');
  });

  it('reports batch items one by one', async () => {
    const reply = await call('POST', '/predictions/batch', {
      requests: [
        { model: 'mf-i1/i1-base', input: { prompt: 'ok' }, image_count: 1, idempotency_key: 'b-ok' },
        {
          model: 'mf-i1/i1-base',
          input: { prompt: 'x', size: '4K' },
          image_count: 1,
          idempotency_key: 'b-bad',
        },
        { model: 'nope', input: { prompt: 'x' }, image_count: 1, idempotency_key: 'b-model' },
        { model: 'mf-i1/i1-base', input: { prompt: 'x' } },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.items.map((item: Json) => item.prediction?.status ?? item.error.code)).toEqual([
      'processing',
      'UNKNOWN_PARAMETER',
      'MODEL_NOT_FOUND',
      'MISSING_PARAMETER',
    ]);
    const again = await call('GET', `/predictions/batch/${reply.body.id}`);
    expect(again.body.items[0].prediction.id).toBe(reply.body.items[0].prediction.id);
  });
});

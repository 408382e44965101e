import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient, serviceClientFromEnv } from '../../api/client/index.ts';
import { type FakeService, json, record, startFakeService, TEST_KEY } from './fake-service.ts';

let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const batch = {
  id: 'batch_1',
  status: 'completed',
  created_at: '2025-01-01T00:00:00Z',
  items: [
    { index: 0, prediction: record() },
    {
      index: 1,
      error: {
        type: 'invalid_request_error',
        code: 'INVALID_PARAMETER',
        message: 'duration must be one of "5", "10"',
      },
    },
    {
      index: 2,
      error: { type: 'rate_limit_error', code: 'TOO_MANY_IN_FLIGHT', message: 'too many in flight' },
    },
  ],
};

describe('request rules (service-spec.md parts 2.1, 4.3, 5)', () => {
  it('create sends the key, JSON headers, the Idempotency-Key, image_count 1 and enum numbers as strings', async () => {
    service = await startFakeService(json(201, record()));
    const prediction = await service
      .client()
      .predictions.create(
        'V1',
        { prompt: 'waves', duration: 5, camera_fixed: true },
        { idempotencyKey: 'job-abc' },
      );
    expect(prediction).toMatchObject({ id: '42', status: 'processing', creditsUsed: 120_000 });
    const [request] = service.received;
    expect(request).toMatchObject({ method: 'POST', url: '/v1/mf-v1/v1-base/predictions' });
    expect(request!.headers).toMatchObject({
      authorization: `Bearer ${TEST_KEY}`,
      accept: 'application/json',
      'content-type': 'application/json',
      'idempotency-key': 'job-abc',
    });
    // duration is an enum string in the catalogue; camera_fixed is a real boolean and stays one.
    expect(JSON.parse(request!.body)).toEqual({
      input: { prompt: 'waves', duration: '5', camera_fixed: true },
      image_count: 1,
    });
  });

  it('a create without an idempotency key is refused before anything is sent', async () => {
    service = await startFakeService(json(201, record()));
    expect(() => service!.client().predictions.create('I1', { prompt: 'x' }, { idempotencyKey: '' })).toThrow(
      /idempotencyKey/,
    );
    expect(service.received).toHaveLength(0);
  });

  it('GETs carry the key and accept header but no body or content type', async () => {
    service = await startFakeService(json(200, { credits: '12.345678', currency: 'USD' }));
    expect(await service.client().account.balance()).toEqual({ credits: 12_345_678, currency: 'USD' });
    const [request] = service.received;
    expect(request!.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(request!.headers.accept).toBe('application/json');
    expect(request!.headers['content-type']).toBeUndefined();
    expect(request!.body).toBe('');
  });

  it('batch items carry model ids, image_count 1 and their own idempotency_key; item errors are classified', async () => {
    service = await startFakeService(json(200, batch));
    const result = await service.client().batches.create([
      { model: 'I1', input: { prompt: 'a' }, idempotencyKey: 'k0' },
      {
        model: 'V4',
        input: { prompt: 'b', start_image: 'http://x/a.png', duration: 7 },
        idempotencyKey: 'k1',
      },
      { model: 'I2', input: { prompt: 'c' }, idempotencyKey: 'k2' },
    ]);
    expect(JSON.parse(service.received[0]!.body)).toEqual({
      requests: [
        { model: 'mf-i1/i1-base', input: { prompt: 'a' }, image_count: 1, idempotency_key: 'k0' },
        {
          model: 'mf-v4/v4-base',
          input: { prompt: 'b', start_image: 'http://x/a.png', duration: '7' },
          image_count: 1,
          idempotency_key: 'k1',
        },
        { model: 'mf-i2/i2-base', input: { prompt: 'c' }, image_count: 1, idempotency_key: 'k2' },
      ],
    });
    expect(result.items[0]!.prediction).toMatchObject({ id: '42', status: 'processing' });
    expect(result.items[1]!.error).toMatchObject({ code: 'INVALID_PARAMETER', retryable: false });
    expect(result.items[2]!.error).toMatchObject({
      code: 'TOO_MANY_IN_FLIGHT',
      retryable: true,
      maybeCreated: false,
    });
  });

  it('estimate and usage come back as exact micro-dollars', async () => {
    service = await startFakeService((request, response) => {
      const body = request.url.startsWith('/v1/estimate')
        ? { model: 'mf-v2/v2-base', credits: '1.76' }
        : {
            predictions: 3,
            credits: '0.36',
            by_model: [{ model: 'mf-i1/i1-base', predictions: 3, credits: '0.36' }],
          };
      json(200, body)(request, response);
    });
    const client = service.client();
    expect(await client.estimate('V2', { prompt: 'x', duration: 8 })).toBe(1_760_000);
    expect(await client.account.usage()).toEqual({
      predictions: 3,
      credits: 360_000,
      byModel: [{ model: 'mf-i1/i1-base', predictions: 3, credits: 360_000 }],
    });
    expect(JSON.parse(service.received[0]!.body)).toEqual({
      model: 'mf-v2/v2-base',
      input: { prompt: 'x', duration: '8' },
      image_count: 1,
    });
  });

  it('files are uploaded as base64 in a JSON body; a 204 delete resolves', async () => {
    service = await startFakeService((request, response) => {
      if (request.method === 'DELETE') {
        response.writeHead(204).end();
        return;
      }
      json(201, {
        id: 'file_1',
        filename: 'a.png',
        content_type: 'image/png',
        bytes: 3,
        url: 'http://cdn/file_1',
        created_at: '2025-01-01T00:00:00Z',
      })(request, response);
    });
    const client = service.client();
    const file = await client.files.upload({
      filename: 'a.png',
      contentType: 'image/png',
      data: new Uint8Array([1, 2, 3]),
    });
    expect(file.url).toBe('http://cdn/file_1');
    expect(JSON.parse(service.received[0]!.body)).toEqual({
      filename: 'a.png',
      content_type: 'image/png',
      data: 'AQID',
    });
    await expect(client.files.delete('file_1')).resolves.toBeUndefined();
  });
});

describe('configuration', () => {
  it('serviceClientFromEnv names every missing variable', () => {
    expect(() => serviceClientFromEnv({})).toThrow(/MEDIAFLOW_API_URL and MEDIAFLOW_API_KEY must be set/);
    expect(() => serviceClientFromEnv({ MEDIAFLOW_API_URL: 'http://127.0.0.1:1/v1' })).toThrow(
      /^MEDIAFLOW_API_KEY must be set/,
    );
  });

  it('a base URL that does not end with /v1 is refused with an example', () => {
    expect(() => createServiceClient({ baseUrl: 'http://127.0.0.1:4010', apiKey: 'k' })).toThrow(
      /end with \/v1/,
    );
  });
});

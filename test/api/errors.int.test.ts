import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient, ServiceError } from '../../api/client/index.ts';
import { caught, type FakeService, json, record, startFakeService, TEST_KEY } from './fake-service.ts';

let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const create = (client: ReturnType<FakeService['client']>) =>
  client.predictions.create('I1', { prompt: 'a cat' }, { idempotencyKey: 'key-1' });

async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function asServiceError(error: unknown): ServiceError {
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('ServiceError classification', () => {
  it('a refused connection is retryable and surely did not create anything', async () => {
    const port = await refusedPort();
    const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: TEST_KEY });
    const error = asServiceError(await caught(() => create(client)));
    await client.close();
    expect(error).toMatchObject({
      status: null,
      type: 'network_error',
      code: 'ECONNREFUSED',
      retryable: true,
      maybeCreated: false,
    });
  });

  it('a connection reset in the middle of the reply may have created the prediction', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      response.write('{"id": 4');
      setImmediate(() => response.socket?.destroy());
    });
    const error = asServiceError(await caught(() => create(service!.client())));
    expect(error).toMatchObject({ status: null, type: 'network_error', retryable: true, maybeCreated: true });
  });

  it('a server that hangs past the timeout gives a retryable timeout_error', async () => {
    service = await startFakeService(() => {});
    const client = service.client({ timeoutMs: 150 });
    const onCreate = asServiceError(await caught(() => create(client)));
    expect(onCreate).toMatchObject({
      type: 'timeout_error',
      code: 'TIMEOUT',
      retryable: true,
      maybeCreated: true,
    });
    // A read has no side effect, so it can never be "maybe created".
    const onGet = asServiceError(await caught(() => client.predictions.get('42')));
    expect(onGet).toMatchObject({ type: 'timeout_error', retryable: true, maybeCreated: false });
  });

  it('the caller aborting gets its own abort reason back, not a service error', async () => {
    service = await startFakeService(() => {});
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    const pending = service.client().predictions.get('42', { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it('429 honours Retry-After in seconds and is not "maybe created"', async () => {
    const body = { error: { type: 'rate_limit_error', code: 'RATE_LIMITED', message: 'slow down' } };
    service = await startFakeService(json(429, body, { 'retry-after': '3' }));
    const error = asServiceError(await caught(() => create(service!.client())));
    expect(error).toMatchObject({
      status: 429,
      type: 'rate_limit_error',
      code: 'RATE_LIMITED',
      retryable: true,
      retryAfterMs: 3000,
      maybeCreated: false,
    });
  });

  it('408 is a passing fault, and a create it timed out may have been made', async () => {
    const body = { error: { type: 'api_error', code: 'REQUEST_TIMEOUT', message: 'took too long' } };
    service = await startFakeService(json(408, body));
    const error = asServiceError(await caught(() => create(service!.client())));
    expect(error).toMatchObject({ status: 408, retryable: true, maybeCreated: true });
  });

  it('retry-after-ms wins over Retry-After', async () => {
    const body = { error: { type: 'rate_limit_error', code: 'RATE_LIMITED', message: 'slow down' } };
    service = await startFakeService(json(429, body, { 'retry-after': '3', 'retry-after-ms': '250' }));
    const error = asServiceError(await caught(() => service!.client().account.balance()));
    expect(error.retryAfterMs).toBe(250);
  });

  it('Retry-After as an HTTP date becomes a delay from now', async () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    service = await startFakeService(json(503, { nope: true }, { 'retry-after': at }));
    const error = asServiceError(await caught(() => service!.client().health()));
    expect(error.retryAfterMs).toBeGreaterThan(50_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('503 with a non-JSON body is retryable, typed by its status, and a create may have happened', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(503, { 'content-type': 'text/html' });
      response.end('<html>upstream overloaded</html>');
    });
    const error = asServiceError(await caught(() => create(service!.client())));
    expect(error).toMatchObject({
      status: 503,
      type: 'api_error',
      code: 'HTTP_503',
      retryable: true,
      retryAfterMs: null,
      maybeCreated: true,
    });
  });

  it('400 carries the field and the allowed values and is not retryable', async () => {
    const body = {
      error: {
        type: 'invalid_request_error',
        code: 'INVALID_PARAMETER',
        message: 'aspect_ratio must be one of "1:1", "16:9", "9:16" (as a string)',
        param: 'aspect_ratio',
        allowed: ['1:1', '16:9', '9:16'],
      },
    };
    service = await startFakeService(json(400, body));
    const error = asServiceError(await caught(() => create(service!.client())));
    expect(error).toMatchObject({
      status: 400,
      code: 'INVALID_PARAMETER',
      param: 'aspect_ratio',
      allowed: ['1:1', '16:9', '9:16'],
      retryable: false,
      maybeCreated: false,
    });
    expect(error.message).toContain('aspect_ratio must be one of');
  });

  it('a 200 whose body is not JSON is INVALID_RESPONSE, not retryable', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('all good');
    });
    const error = asServiceError(await caught(() => service!.client().predictions.get('42')));
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', retryable: false });
  });

  it('a 200 whose JSON does not match the contract is INVALID_RESPONSE naming the field', async () => {
    service = await startFakeService(json(200, { credits: 12.5 }));
    const error = asServiceError(await caught(() => service!.client().account.balance()));
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', retryable: false });
    expect(error.message).toContain('credits');
  });
});

describe('the API key never leaks into an error', () => {
  it('not in the message, the JSON or the stack, even when the server echoes it', async () => {
    const echo = {
      error: {
        type: 'authentication_error',
        code: 'INVALID_API_KEY',
        message: `key ${TEST_KEY} is not valid`,
      },
    };
    service = await startFakeService(json(401, echo));
    const errors = [asServiceError(await caught(() => service!.client().account.get()))];
    const port = await refusedPort();
    const refused = createServiceClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: TEST_KEY });
    errors.push(asServiceError(await caught(() => refused.predictions.get('1'))));
    await refused.close();
    for (const error of errors) {
      const visible = [error.message, JSON.stringify(error), error.stack ?? '', String(error)].join('\n');
      expect(visible).not.toContain(TEST_KEY);
      expect(visible).not.toMatch(/authorization|bearer/i);
    }
    expect(errors[0]).toMatchObject({ status: 401, code: 'INVALID_API_KEY', retryable: false });
  });
});

describe('success bodies that look different but mean the same', () => {
  it('parses an unknown status as still running and keeps the raw value', async () => {
    service = await startFakeService(json(200, record({ status: 'warming_up', brand_new_field: { a: 1 } })));
    const prediction = await service.client().predictions.get('42');
    expect(prediction).toMatchObject({
      id: '42',
      status: 'unknown',
      rawStatus: 'warming_up',
      creditsUsed: 120_000,
    });
  });

  it('reads the job form (job_id / output) like the record form', async () => {
    service = await startFakeService(
      json(200, {
        job_id: 'job_7',
        status: 'succeeded',
        output: ['https://cdn/x.png'],
        credits_used: '0.05',
      }),
    );
    const prediction = await service.client().predictions.get('job_7');
    expect(prediction).toMatchObject({
      id: 'job_7',
      status: 'succeeded',
      outputs: ['https://cdn/x.png'],
      creditsUsed: 50_000,
    });
  });

  it('accepts a string id in the record form', async () => {
    service = await startFakeService(
      json(200, record({ id: 'abc', status: 'completed', output_data: { urls: ['u'] } })),
    );
    expect(await service.client().predictions.get('abc')).toMatchObject({
      id: 'abc',
      status: 'succeeded',
      outputs: ['u'],
    });
  });
});

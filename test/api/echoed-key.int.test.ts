/**
 * A service that echoes the API key, in every form, in every field it sends back: nothing the
 * client returns or throws holds it (api/client/redact.ts, applied by the transport).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/client/index.ts';
import { keyForms, keyFormsIn } from '../helpers/key-forms.ts';
import {
  caught,
  collect,
  type FakeService,
  json,
  record,
  startFakeService,
  TEST_KEY,
} from './fake-service.ts';

let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const echoes = Object.values(keyForms(TEST_KEY));
const echoed = echoes.join(' | ');
/** An error object with the key in each field the wire format has, and one it does not. */
const errorEcho = {
  type: `invalid_request_error ${echoes[1]}`,
  code: `BAD_${echoes[3]}`,
  message: `your key ${echoed} is wrong`,
  param: echoes[5],
  allowed: echoes,
  detail: { header: `Authorization: Bearer ${TEST_KEY}` },
};

function visible(error: unknown): string {
  const e = error as ServiceError;
  return [e.message, JSON.stringify(e), e.stack ?? '', String(e)].join('\n');
}

describe('an echoing service', () => {
  it.each([400, 401, 429, 503])('an HTTP %i error body: every field redacted', async (status) => {
    service = await startFakeService(json(status, { error: errorEcho }));
    const error = await caught(() => service!.client().account.get());
    expect(error).toBeInstanceOf(ServiceError);
    expect(keyFormsIn(visible(error), TEST_KEY)).toEqual([]);
    expect((error as ServiceError).allowed).toHaveLength(echoes.length);
  });

  it('a batch item error: every field redacted', async () => {
    const batch = {
      id: 'batch_1',
      status: 'completed',
      created_at: '2025-01-01T00:00:00.000Z',
      items: [{ index: 0, error: { ...errorEcho, status: 400 } }],
    };
    service = await startFakeService(json(200, batch));
    const result = await service.client().batches.get('batch_1');
    expect(result.items[0]?.error).toBeInstanceOf(ServiceError);
    expect(keyFormsIn(visible(result.items[0]?.error), TEST_KEY)).toEqual([]);
  });

  it("a failed prediction's error text, read and streamed", async () => {
    const failed = record({ status: 'failed', error: { code: echoes[4], message: echoed } });
    service = await startFakeService(json(200, failed));
    const read = await service.client().predictions.get('42');
    expect(read.status).toBe('failed');
    expect(keyFormsIn(JSON.stringify(read), TEST_KEY)).toEqual([]);
    await service.close();

    service = await startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`event: status\ndata: ${JSON.stringify(failed)}\n\nevent: done\ndata: {}\n\n`);
    });
    const streamed = await collect(service.client().predictions.stream('42'));
    expect(streamed.at(-1)?.status).toBe('failed');
    expect(keyFormsIn(JSON.stringify(streamed), TEST_KEY)).toEqual([]);
  });

  it('a 200 that does not match the contract, quoting the key', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`not json ${TEST_KEY.toUpperCase()}`);
    });
    const error = await caught(() => service!.client().account.get());
    expect((error as ServiceError).code).toBe('INVALID_RESPONSE');
    expect(keyFormsIn(visible(error), TEST_KEY)).toEqual([]);
  });
});

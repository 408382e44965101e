import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBody, I1, type Json, useEmulator } from './helpers.ts';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver that answers the first `failures` deliveries with 500. */
function receiver() {
  const deliveries: Delivery[] = [];
  const waiters: Array<() => void> = [];
  let failures = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body });
      response.statusCode = failures-- > 0 ? 500 : 204;
      response.end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  return {
    deliveries,
    failNext: (n: number) => {
      failures = n;
    },
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    until: async (count: number) => {
      while (deliveries.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

const asRecord = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));

describe('webhooks', () => {
  const { call } = useEmulator();
  const hooks = receiver();
  let url = '';
  beforeAll(async () => {
    url = await hooks.listen();
  });
  afterAll(() => hooks.close());

  it('delivers prediction.succeeded signed with Standard Webhooks; a tampered body or old timestamp fails', async () => {
    const registered = await call('POST', '/webhooks', { url, events: ['prediction.succeeded'] });
    expect(registered.body.secret).toMatch(/^whsec_/);
    const created = await call('POST', I1, createBody({ prompt: 'signed' }));
    await hooks.until(1);
    const [delivery] = hooks.deliveries;
    const verifier = new Webhook(registered.body.secret);
    const event = verifier.verify(delivery!.body, asRecord(delivery!.headers)) as Json;
    expect(event).toMatchObject({
      type: 'prediction.succeeded',
      data: { id: created.body.id, status: 'succeeded' },
    });
    expect(() =>
      verifier.verify(delivery!.body.replace('signed', 'forged'), asRecord(delivery!.headers)),
    ).toThrow();
    const old = {
      ...asRecord(delivery!.headers),
      'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600),
    };
    expect(() => verifier.verify(delivery!.body, old)).toThrow();
    const list = await call('GET', '/webhooks');
    expect(list.body.data).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
  });

  it('retries a failed delivery with the same message id', async () => {
    hooks.deliveries.length = 0;
    hooks.failNext(2);
    await call('POST', I1, createBody({ prompt: 'retried' }));
    await hooks.until(3);
    const ids = hooks.deliveries.map((d) => d.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
  });

  it('refuses endpoints outside loopback', async () => {
    const reply = await call('POST', '/webhooks', { url: 'https://example.com/hook' });
    expect(reply.status).toBe(400);
    expect(reply.body.error.param).toBe('url');
  });
});

/**
 * Output links expire wherever the emulator hands them out (docs/service-assumptions.md, "Output
 * links expire"): a GET, the stream, and also a batch reply and a webhook. Before, the batch
 * and the webhook listed the stored links, which never expired, so a client that took its link
 * from a webhook never met an expiry that a real service would give it. `linkTtlShare` makes
 * only a share of the predictions' links expire (the `field` drill's "5 % of links"), the same
 * way on every read of one prediction.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBody, I1, type Json, useEmulator } from './helpers.ts';

const TTL_MS = 60_000;
const EXPIRES = /\?expires=(\d+)$/;

/** The `expires` of a link, or null when it never expires. */
const expiresOf = (url: string) => {
  const match = EXPIRES.exec(url);
  return match ? Number(match[1]) : null;
};

describe('expiring output links', () => {
  const { call } = useEmulator({ faults: { linkTtlMs: TTL_MS } });
  const received: Json[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(JSON.parse(body));
      response.statusCode = 204;
      response.end();
    });
  });
  let hookUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function succeeded(id: number): Promise<Json> {
    for (;;) {
      const got = await call('GET', `/predictions/${id}`);
      if (got.body.status === 'succeeded') return got.body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('a batch reply about a finished prediction carries links that expire like a GET', async () => {
    const item = {
      model: 'mf-i1/i1-base',
      input: { prompt: 'batch link' },
      image_count: 1,
      idempotency_key: 'b-1',
    };
    const first = await call('POST', '/predictions/batch', { requests: [item] });
    await succeeded(first.body.items[0].prediction.id);

    const before = Date.now();
    const again = await call('POST', '/predictions/batch', { requests: [item] });
    const urls: string[] = again.body.items[0].prediction.output_data.urls;
    expect(urls).toHaveLength(1);
    const expires = expiresOf(urls[0]!);
    expect(expires).not.toBeNull();
    expect(expires!).toBeGreaterThanOrEqual(before + TTL_MS);
    // The same link, once past its time, is refused by the CDN like any other.
    const expired = await fetch(urls[0]!.replace(EXPIRES, `?expires=${Date.now() - 1}`));
    expect(expired.status).toBe(410);
    expect((await fetch(urls[0]!)).status).toBe(200);
  });

  it('a webhook reports the links the stream delivers, which expire', async () => {
    await call('POST', '/webhooks', { url: hookUrl, events: ['prediction.succeeded'] });
    const created = await call('POST', I1, createBody({ prompt: 'webhook link' }));
    while (!received.some((event) => event.data.id === created.body.id)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const event = received.find((e) => e.data.id === created.body.id);
    const urls: string[] = event.data.output_data.urls;
    expect(urls).toHaveLength(1);
    expect(expiresOf(urls[0]!)).not.toBeNull();
  });
});

describe('linkTtlShare: a share of the predictions expire', () => {
  const { call } = useEmulator({ faults: { linkTtlMs: TTL_MS, linkTtlShare: 0.3 } });

  it('expires the links of about that share, each prediction alike on every read', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 40; i++)
      ids.push((await call('POST', I1, createBody({ prompt: `share ${i}` }))).body.id);
    let expiring = 0;
    for (const id of ids) {
      let first: Json;
      do first = (await call('GET', `/predictions/${id}`)).body;
      while (first.status !== 'succeeded');
      const second = (await call('GET', `/predictions/${id}`)).body;
      const a = expiresOf(first.output_data.urls[0]) !== null;
      const b = expiresOf(second.output_data.urls[0]) !== null;
      expect(b).toBe(a);
      if (a) expiring++;
    }
    // Seeded (seed 7): some expire, most do not; never all or none.
    expect(expiring).toBeGreaterThan(2);
    expect(expiring).toBeLessThan(25);
  });
});

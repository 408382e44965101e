import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '../../../api/client/index.ts';
import { freshKey, serviceError, useEmulator } from './harness.ts';

interface Delivery {
  readonly body: string;
  readonly headers: Record<string, string>;
}

const contract = useEmulator();
const deliveries: Delivery[] = [];
const waiting: ((delivery: Delivery) => void)[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(204).end();
    const delivery = { body: Buffer.concat(chunks).toString('utf8'), headers: flatten(request.headers) };
    deliveries.push(delivery);
    waiting.shift()?.(delivery);
  });
});
let receiverUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

function nextDelivery(): Promise<Delivery> {
  return new Promise((resolve) => waiting.push(resolve));
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
}

describe('webhook deliveries', () => {
  it('are signed with Standard Webhooks: genuine verifies, tampered or replayed later fails', async () => {
    const hook = await contract.client.webhooks.create({
      url: receiverUrl,
      events: ['prediction.succeeded'],
    });
    const delivered = nextDelivery();
    const prediction = await contract.client.predictions.create(
      'I4',
      { prompt: 'x' },
      { idempotencyKey: freshKey() },
    );
    const delivery = await delivered;

    const event = verifyWebhook(hook.secret!, delivery.body, delivery.headers);
    expect(event.type).toBe('prediction.succeeded');
    expect(event.prediction).toMatchObject({ id: prediction.id, status: 'succeeded' });
    expect(event.prediction.outputs).toHaveLength(1);

    const tampered = delivery.body.replace('"succeeded"', '"failed"');
    expect(() => verifyWebhook(hook.secret!, tampered, delivery.headers)).toThrow(
      expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID' }),
    );
    expect(() =>
      verifyWebhook(
        `whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`,
        delivery.body,
        delivery.headers,
      ),
    ).toThrow(expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID' }));

    // The same genuine delivery, presented ten minutes later, is a replay.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10 * 60_000 });
    try {
      expect(() => verifyWebhook(hook.secret!, delivery.body, delivery.headers)).toThrow(
        expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID' }),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('a webhook to a non-loopback host is refused by the emulator with the field named', async () => {
    const error = await serviceError(() =>
      contract.client.webhooks.create({ url: 'https://example.com/hooks' }),
    );
    expect(error).toMatchObject({ status: 400, param: 'url', retryable: false });
  });
});

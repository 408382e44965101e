import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ServiceError, verifyWebhook } from '../../api/client/index.ts';
import { record } from './fake-service.ts';

const secret = `whsec_${Buffer.from('a-test-signing-secret-32-bytes!!').toString('base64')}`;
const payload = JSON.stringify({
  type: 'prediction.succeeded',
  timestamp: '2025-01-01T00:00:00Z',
  data: record({ status: 'succeeded', output_data: { urls: ['http://cdn/a.png'] } }),
});

function sign(body: string, at: Date, id = 'msg_1'): Record<string, string> {
  return {
    'Webhook-Id': id,
    'Webhook-Timestamp': String(Math.floor(at.getTime() / 1000)),
    'Webhook-Signature': new Webhook(secret).sign(id, at, body),
  };
}

describe('verifyWebhook', () => {
  it('accepts a fresh, correctly signed delivery (any header case) and normalises its prediction', () => {
    const event = verifyWebhook(secret, payload, sign(payload, new Date()));
    expect(event.type).toBe('prediction.succeeded');
    expect(event.prediction).toMatchObject({ id: '42', status: 'succeeded', outputs: ['http://cdn/a.png'] });
  });

  it('rejects a tampered body', () => {
    const headers = sign(payload, new Date());
    const tampered = payload.replace('a.png', 'b.png');
    expect(() => verifyWebhook(secret, tampered, headers)).toThrow(ServiceError);
    expect(() => verifyWebhook(secret, tampered, headers)).toThrow(
      expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID', retryable: false }),
    );
  });

  it('rejects a correctly signed but old delivery (replay)', () => {
    const old = new Date(Date.now() - 10 * 60_000);
    expect(() => verifyWebhook(secret, payload, sign(payload, old))).toThrow(
      expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID' }),
    );
  });

  it('rejects a delivery signed with another secret or without headers', () => {
    const other = `whsec_${Buffer.from('another-secret-of-32-bytes-long!').toString('base64')}`;
    const headers = sign(payload, new Date());
    expect(() => verifyWebhook(other, payload, headers)).toThrow(
      expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID' }),
    );
    expect(() => verifyWebhook(secret, payload, {})).toThrow(
      expect.objectContaining({ code: 'WEBHOOK_SIGNATURE_INVALID' }),
    );
  });
});

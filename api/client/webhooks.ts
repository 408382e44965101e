/**
 * Verifies a webhook delivery with the Standard Webhooks scheme (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature` headers; HMAC-SHA256 over `id.timestamp.body`; the
 * `standardwebhooks` library rejects timestamps more than 5 minutes away) and parses its payload.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { type Prediction, parsePrediction } from '../wire/prediction.ts';
import { WebhookEvent } from '../wire/resources.ts';
import { ServiceError } from './errors.ts';

/** The wire payload plus its prediction normalised like every other record. */
export type VerifiedWebhookEvent = WebhookEvent & { readonly prediction: Prediction };

export function verifyWebhook(
  secret: string,
  payload: string,
  headers: Readonly<Record<string, string>>,
): VerifiedWebhookEvent {
  // Frameworks differ in header case; the library expects lower case.
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  let body: unknown;
  try {
    body = new Webhook(secret).verify(payload, lower);
  } catch (error) {
    const why = error instanceof WebhookVerificationError ? error.message : 'malformed signature headers';
    throw webhookError('WEBHOOK_SIGNATURE_INVALID', `webhook rejected: ${why}`);
  }
  const event = WebhookEvent.safeParse(body);
  if (!event.success)
    throw webhookError('WEBHOOK_PAYLOAD_INVALID', 'webhook payload is not a prediction event');
  return { ...event.data, prediction: parsePrediction(event.data.data) };
}

function webhookError(code: string, message: string): ServiceError {
  return new ServiceError({ message, status: null, type: 'invalid_request_error', code, retryable: false });
}

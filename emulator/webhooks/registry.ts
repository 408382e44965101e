/**
 * Webhook endpoints. The emulator only delivers to loopback addresses, so a test or a local run
 * can never make it post to the outside world; other hosts are refused when registered (and
 * redirects are never followed: see delivery.ts).
 */
import { randomBytes } from 'node:crypto';
import { type CreateWebhookBody, WEBHOOK_EVENTS, type Webhook } from '../../api/wire/index.ts';
import { ApiError } from '../http/errors.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface WebhookRecord {
  readonly id: string;
  readonly seq: number;
  readonly url: string;
  readonly events: readonly string[];
  /** Standard Webhooks signing secret. */
  readonly secret: string;
  readonly createdAt: string;
}

export class WebhookRegistry {
  private readonly hooks: WebhookRecord[] = [];
  private lastSeq = 0;

  create(body: CreateWebhookBody): WebhookRecord {
    if (!LOOPBACK_HOSTS.has(new URL(body.url).hostname)) {
      throw new ApiError(
        'INVALID_PARAMETER',
        'the emulator delivers webhooks to loopback addresses only (127.0.0.1, localhost, [::1])',
        {
          param: 'url',
        },
      );
    }
    // Never reused after a delete: an id names one endpoint for the emulator's whole life.
    const seq = ++this.lastSeq;
    const record: WebhookRecord = {
      id: `wh_${seq}`,
      seq,
      url: body.url,
      events: body.events ?? [...WEBHOOK_EVENTS],
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      createdAt: new Date().toISOString(),
    };
    this.hooks.push(record);
    return record;
  }

  /** Stops deliveries to it, retries included (the dispatcher asks `has` before each attempt). */
  delete(id: string): boolean {
    const index = this.hooks.findIndex((hook) => hook.id === id);
    if (index === -1) return false;
    this.hooks.splice(index, 1);
    return true;
  }

  has(id: string): boolean {
    return this.hooks.some((hook) => hook.id === id);
  }

  list(): readonly WebhookRecord[] {
    return this.hooks;
  }

  subscribedTo(event: string): WebhookRecord[] {
    return this.hooks.filter((hook) => hook.events.includes(event));
  }
}

/** The secret is shown once, at creation, like an API key. */
export function webhookToWire(record: WebhookRecord, revealSecret: boolean): Webhook {
  return {
    id: record.id,
    url: record.url,
    events: [...record.events],
    created_at: record.createdAt,
    ...(revealSecret ? { secret: record.secret } : {}),
  };
}

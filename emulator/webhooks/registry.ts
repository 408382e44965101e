/**
 * Webhook endpoints. The emulator only delivers to loopback addresses, so a test or a local run
 * can never make it post to the outside world; other hosts are refused when registered (and
 * redirects are never followed: see delivery.ts).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { CreateWebhookBody, WEBHOOK_EVENTS, type Webhook } from '../../api/wire/index.ts';

/**
 * A pattern rather than a check in code, so the OpenAPI document states the rule and a schema-
 * valid URL is one the emulator accepts. ASCII classes only: `\d` or `\S` would let a generator
 * (or a user) write digits and characters that are not valid in a URL; ports stop at 65535.
 */
const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
const LOOPBACK_URL = new RegExp(`^https?://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:${PORT})?([/?#][!-~]*)?$`);

/** The emulator's register body: the wire body with the URL held to loopback. */
export const LoopbackWebhookBody = CreateWebhookBody.extend({
  url: z
    .string()
    .regex(
      LOOPBACK_URL,
      'the emulator delivers webhooks to loopback addresses only (127.0.0.1, localhost, [::1])',
    )
    .pipe(CreateWebhookBody.shape.url),
});
export type LoopbackWebhookBody = z.infer<typeof LoopbackWebhookBody>;

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

  create(body: LoopbackWebhookBody): WebhookRecord {
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

  /** What the state file keeps (emulator/persistence). */
  save(): { lastSeq: number; hooks: Array<WebhookRecord & { events: string[] }> } {
    return {
      lastSeq: this.lastSeq,
      hooks: this.hooks.map((hook) => ({ ...hook, events: [...hook.events] })),
    };
  }

  restore(saved: { lastSeq: number; hooks: readonly WebhookRecord[] }): void {
    this.hooks.splice(0, this.hooks.length, ...saved.hooks.map((hook) => ({ ...hook })));
    this.lastSeq = saved.lastSeq;
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

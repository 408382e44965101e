/**
 * Delivers `prediction.succeeded|failed|canceled` to every subscribed endpoint, signed with the
 * Standard Webhooks scheme (webhook-id / webhook-timestamp / webhook-signature). A non-2xx reply
 * (a 3xx included: redirects are not followed) or a network error is retried with exponential backoff (1, 2, 4, 8, 16 s × time scale), six
 * attempts in all; the message id stays the same across retries so receivers can deduplicate.
 */
import { Webhook as Signer } from 'standardwebhooks';
import type { WebhookEvent } from '../../api/wire/index.ts';
import type { LinkIssuer } from '../media/links.ts';
import { predictionToWire, type StoredPrediction } from '../predictions/prediction.ts';
import type { WebhookRecord, WebhookRegistry } from './registry.ts';

const MAX_ATTEMPTS = 6;
const FIRST_RETRY_MS = 1000;
const ATTEMPT_TIMEOUT_MS = 10_000;

export class WebhookDispatcher {
  private readonly retries = new Set<NodeJS.Timeout>();
  private readonly aborter = new AbortController();

  private readonly registry: WebhookRegistry;
  private readonly timeScale: number;
  /** The links a settled prediction is reported with: those the stream would deliver (they expire alike). */
  private readonly links: LinkIssuer | undefined;

  constructor(registry: WebhookRegistry, timeScale: number, links?: LinkIssuer) {
    this.registry = registry;
    this.timeScale = timeScale;
    this.links = links;
  }

  /** Fire and forget: a slow receiver never slows the prediction it reports on. */
  predictionSettled(prediction: StoredPrediction): void {
    const type = `prediction.${prediction.status}`;
    const hooks = this.registry.subscribedTo(type);
    if (hooks.length === 0) return;
    const event: WebhookEvent = {
      type,
      timestamp: prediction.updatedAt,
      data: predictionToWire(prediction, this.links?.(prediction, 'delivered')),
    };
    const payload = JSON.stringify(event);
    for (const hook of hooks) void this.attempt(hook, `msg_${prediction.id}_${hook.id}`, payload, 1);
  }

  stop(): void {
    this.aborter.abort();
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
  }

  private async attempt(
    hook: WebhookRecord,
    messageId: string,
    payload: string,
    attempt: number,
  ): Promise<void> {
    if (this.aborter.signal.aborted || !this.registry.has(hook.id)) return;
    const now = new Date();
    let delivered = false;
    try {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': messageId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': new Signer(hook.secret).sign(messageId, now, payload),
        },
        body: payload,
        // A redirect is a failed attempt, never followed: the registered loopback URL could
        // otherwise send the signed payload to any host.
        redirect: 'manual',
        signal: AbortSignal.any([this.aborter.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      await response.body?.cancel();
      delivered = response.ok;
    } catch {
      // A refused connection or timeout counts as a failed attempt, like a non-2xx reply.
    }
    if (delivered || attempt >= MAX_ATTEMPTS || this.aborter.signal.aborted) return;
    const delay = FIRST_RETRY_MS * 2 ** (attempt - 1) * this.timeScale;
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      void this.attempt(hook, messageId, payload, attempt + 1);
    }, delay);
    this.retries.add(timer);
  }
}

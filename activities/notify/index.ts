/**
 * The notice delivery activity (docs/notifications.md), built by a factory that receives every
 * dependency: the worker's environment, where the secrets and secret URLs are read by the names
 * the workflow passes (the workflow, and so its history, never holds them), and `fetch`.
 *
 * One attempt per call; Temporal retries it with backoff (workflows/runtime/activities.ts) under the same
 * `webhook-id`, so a receiver that took an attempt whose reply was lost drops the repeat. A
 * receiver's 4xx (other than 408 and 429) refuses the notice: asking again would not change that.
 * Every error names the receiver's host only, never a URL's path, a query or a secret.
 */
import { hostname } from 'node:os';
import { ApplicationFailure } from '@temporalio/activity';
import { Webhook } from 'standardwebhooks';
import type { AddressClass } from '../../api/client/link-policy.ts';
import { type Lookup, systemLookup } from '../../api/client/service-address.ts';
import type { NotifyRequest, NotifyTarget } from '../../contract/notify.ts';
import { slackBody, standardBody } from './payload.ts';
import { receiverAllowance, receiverRefusal } from './receiver-address.ts';

export interface NotifyDeps {
  /** The worker's environment (process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch?: typeof globalThis.fetch;
  /** How a receiver's host is resolved, for its address check (receiver-address.ts). */
  readonly lookup?: Lookup;
  /**
   * This process as a failure names it: a `mediaflow review` or `status` can carry a worker of the
   * campaign's queue (cli/campaign-pages.ts), and a setting one of them lacks is that one's to fix.
   */
  readonly processName?: string;
}

/** "mediaflow review (pid 4242 on host-a)": the command this worker runs in. */
function thisProcess(): string {
  const command = process.argv[2] && !process.argv[2].startsWith('-') ? ` ${process.argv[2]}` : '';
  return `mediaflow${command} (pid ${process.pid} on ${hostname()})`;
}

/** A receiver gets this long to answer one attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;

export function notifyActivities({
  env,
  fetch = globalThis.fetch,
  lookup = systemLookup,
  processName = thisProcess(),
}: NotifyDeps) {
  let allowance: Promise<Set<AddressClass>> | null = null;
  /** Refused for good: the same receiver is at the same kind of address on every attempt. */
  async function checkReceiver(url: URL): Promise<void> {
    allowance ??= receiverAllowance(env, lookup).catch((error: unknown) => {
      allowance = null;
      throw error;
    });
    const refused = await receiverRefusal(url, await allowance, lookup).catch((error: unknown) => {
      throw ApplicationFailure.retryable(`${url.host}: ${networkReason(error)}`, 'notify_unreachable');
    });
    if (refused) throw ApplicationFailure.nonRetryable(refused, 'notify_refused');
  }

  /** A setting the worker lacks is not fixed by asking again: the failure says which variable. */
  function fromEnv(name: string, what: string): string {
    const value = env[name];
    if (value) return value;
    throw ApplicationFailure.nonRetryable(
      `${what}: environment variable ${name} is not set on the worker in ${processName}`,
    );
  }

  function urlOf(target: NotifyTarget): URL {
    const text = target.url ?? fromEnv(target.urlEnv!, 'notify url');
    try {
      return new URL(text);
    } catch {
      const where = target.url === null ? `$${target.urlEnv}` : 'the spec';
      throw ApplicationFailure.nonRetryable(`${where} does not hold a valid URL`);
    }
  }

  function headersOf(request: NotifyRequest, body: string): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const { target } = request;
    if (target.kind !== 'standard') return headers;
    const secret = fromEnv(target.secretEnv!, 'signing secret');
    let signer: Webhook;
    try {
      signer = new Webhook(secret);
    } catch {
      throw ApplicationFailure.nonRetryable(
        `$${target.secretEnv} does not hold a Standard Webhooks secret (whsec_ and base64)`,
      );
    }
    const now = new Date();
    return {
      ...headers,
      'webhook-id': request.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signer.sign(request.id, now, body),
    };
  }

  return {
    async deliverNotice(request: NotifyRequest): Promise<void> {
      const url = urlOf(request.target);
      await checkReceiver(url);
      const body = request.target.kind === 'standard' ? standardBody(request) : slackBody(request);
      const headers = headersOf(request, body);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers,
          body,
          // A redirect is a failed attempt, never followed: a signed notice goes where it was sent.
          redirect: 'manual',
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
      } catch (error) {
        throw ApplicationFailure.retryable(`${url.host}: ${networkReason(error)}`, 'notify_unreachable');
      }
      await response.body?.cancel();
      if (response.ok) return;
      const status = `${url.host}: ${response.status}`;
      if (response.status === 408 || response.status === 429 || response.status >= 500) {
        throw ApplicationFailure.retryable(status, 'notify_failed');
      }
      throw ApplicationFailure.nonRetryable(`${status} (refused; not sent again)`, 'notify_refused');
    },
  };
}

/** A network failure in words with no URL in them: the cause's code (ECONNREFUSED), or a timeout. */
function networkReason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError')
    return `no answer in ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'unreachable';
}

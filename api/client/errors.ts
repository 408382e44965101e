/**
 * The one error type of mediaflow's service calls, and the one place that classifies failures.
 * Everything else (activities, engine, CLI) reads `retryable`, `retryAfterMs` and `maybeCreated`
 * and never looks at HTTP statuses or error codes again.
 *
 * Classification is built from exactly two kinds of evidence:
 *  - an HTTP reply: its status (first, so unknown codes still classify) and its error body;
 *  - a transport failure: what went wrong and whether the request had been written to the socket.
 */
import { ErrorBody, errorTypeForStatus } from '../wire/errors.ts';
import { type Redactor, redactDeep } from './redact.ts';

export interface ServiceErrorInit {
  readonly message: string;
  readonly status: number | null;
  readonly type: string;
  readonly code: string;
  readonly param?: string;
  readonly allowed?: readonly string[];
  readonly retryable: boolean;
  readonly retryAfterMs?: number | null;
  readonly maybeCreated?: boolean;
  /** `POST /v1/predictions/batch`: where the call went (no query string, no headers). */
  readonly endpoint?: string;
}

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly status: number | null;
  readonly type: string;
  readonly code: string;
  readonly param?: string;
  readonly allowed?: string[];
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  readonly maybeCreated: boolean;
  readonly endpoint?: string;

  constructor(init: ServiceErrorInit) {
    super(init.message);
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    if (init.param) this.param = init.param;
    if (init.allowed) this.allowed = [...init.allowed];
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.maybeCreated = init.maybeCreated ?? false;
    if (init.endpoint) this.endpoint = init.endpoint;
  }

  /** Refused for a rate limit (whole request or batch item): surely not created, try later. */
  get rateLimited(): boolean {
    return this.status === 429 || this.type === 'rate_limit_error';
  }

  /** Safe to log: built only from the fields above, which never hold a credential. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      type: this.type,
      code: this.code,
      ...(this.param ? { param: this.param } : {}),
      ...(this.allowed ? { allowed: this.allowed } : {}),
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
      maybeCreated: this.maybeCreated,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
    };
  }
}

/** What a call was, as far as classification cares. */
export interface CallContext {
  readonly endpoint: string;
  /** True for POSTs with a side effect (create, upload, rotate…): only they can be "maybe created". */
  readonly createsSomething: boolean;
  /** Removes secrets (the API key) from text that came from elsewhere before it enters a message. */
  readonly redact: Redactor;
}

/** 408 (the server timed the request out), 429 and 5xx pass; every other 4xx is final. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** An HTTP reply with a status ≥ 400, whatever its body (JSON error body, HTML, nothing). */
export function errorFromResponse(
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  bodyText: string,
  call: CallContext,
): ServiceError {
  // Every field of the body is the service's text: any of them may echo the key (redact.ts).
  const parsed = ErrorBody.safeParse(redactDeep(safeJson(bodyText), call.redact));
  const detail = parsed.success ? parsed.data.error : null;
  const message = detail?.message ?? `HTTP ${status} with ${bodyText ? 'an unexpected body' : 'no body'}`;
  return new ServiceError({
    message: `${call.endpoint}: ${call.redact(message)}`,
    status,
    type: detail?.type ?? errorTypeForStatus(status),
    code: detail?.code ?? `HTTP_${status}`,
    ...(detail?.param ? { param: detail.param } : {}),
    ...(detail?.allowed ? { allowed: detail.allowed } : {}),
    retryable: isRetryableStatus(status),
    retryAfterMs: isRetryableStatus(status) ? retryAfterFromHeaders(headers) : null,
    // A 5xx may have been raised after the work was done, and a 408 may time out a request the
    // server went on to act on; any other 4xx (429 included) means it was not.
    maybeCreated: call.createsSomething && (status >= 500 || status === 408),
    endpoint: call.endpoint,
  });
}

/**
 * A failure with no HTTP reply. `sent` says whether the whole request had been written to the
 * socket: before that the server cannot have acted on it; after it, it may have.
 */
export function errorFromTransport(
  cause: unknown,
  sent: boolean,
  timedOut: boolean,
  call: CallContext,
): ServiceError {
  const code = timedOut ? 'TIMEOUT' : transportCode(cause);
  const what = timedOut ? 'timed out' : call.redact(describeCause(cause));
  return new ServiceError({
    message: `${call.endpoint}: ${what}${sent ? ' after the request was sent' : ' before the request was sent'}`,
    status: null,
    type: timedOut ? 'timeout_error' : 'network_error',
    code,
    retryable: true,
    maybeCreated: call.createsSomething && sent,
    endpoint: call.endpoint,
  });
}

/** A 2xx reply whose body is not what the contract says: retrying would not change it. */
export function invalidResponse(call: CallContext, why: string): ServiceError {
  return new ServiceError({
    message: `${call.endpoint}: unexpected response: ${call.redact(why)}`,
    status: null,
    type: 'api_error',
    code: 'INVALID_RESPONSE',
    retryable: false,
    endpoint: call.endpoint,
  });
}

/** A per-item error inside a batch reply: no HTTP status of its own, so the type decides. */
export function errorFromBatchItem(
  item: { type: string; code: string; message: string; status?: unknown; param?: unknown; allowed?: unknown },
  call: CallContext,
): ServiceError {
  const status = typeof item.status === 'number' ? item.status : null;
  const retryable =
    status !== null
      ? isRetryableStatus(status)
      : item.type === 'rate_limit_error' || item.type === 'api_error';
  // The batch reply was redacted whole by the transport; again here, as for a reply's error body,
  // so no caller can build an error from unredacted service text.
  const { redact } = call;
  return new ServiceError({
    message: `${call.endpoint}: ${redact(item.message)}`,
    status,
    type: redact(item.type),
    code: redact(item.code),
    ...(typeof item.param === 'string' ? { param: redact(item.param) } : {}),
    ...(Array.isArray(item.allowed) ? { allowed: item.allowed.map((value) => redact(String(value))) } : {}),
    retryable,
    maybeCreated: retryable && item.type !== 'rate_limit_error',
    endpoint: call.endpoint,
  });
}

/**
 * `retry-after-ms` (milliseconds, a de-facto extension) wins over `Retry-After`, which is either
 * delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 */
export function retryAfterFromHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  now: number = Date.now(),
): number | null {
  const ms = Number(first(headers['retry-after-ms']));
  if (first(headers['retry-after-ms']) !== undefined && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const value = first(headers['retry-after'])?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function transportCode(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'NETWORK_ERROR';
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = transportCode(cause);
    return code === 'NETWORK_ERROR' ? cause.message : `${code} (${cause.message})`;
  }
  return String(cause);
}

/**
 * HTTP to the service: one pooled undici Agent, the request rules of service-spec.md parts 2.1,
 * 4.3 and 5 on every call, a timeout and an AbortSignal on every call, and classification of every
 * failure into a ServiceError (errors.ts). Endpoint code above this never sees undici.
 */
import type { Span } from '@opentelemetry/api';
import { Agent, Dispatcher } from 'undici';
import type { z } from 'zod';
import { type CallTrace, endCallSpan, inCallSpan, noteResponse, startCallSpan } from './call-span.ts';
import {
  type CallContext,
  errorFromResponse,
  errorFromTransport,
  invalidResponse,
  type ServiceError,
} from './errors.ts';
import { type Redactor, redactDeep, secretRedactor } from './redact.ts';
import { cleartextGuard } from './service-address.ts';

export interface TransportOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  readonly connections: number;
}

export interface Call {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Below the base URL, starting with `/`, segments already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  /** See CallContext.createsSomething. */
  readonly createsSomething?: boolean;
  readonly signal?: AbortSignal;
  readonly accept?: string;
  /** What the call's span names beyond HTTP (call-span.ts). */
  readonly trace?: CallTrace;
}

/** An open response whose body the caller consumes (the SSE stream). */
export interface OpenResponse {
  readonly body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };
  readonly call: CallContext;
  /** The caller's signal: aborting it ends the body, and the iterator rethrows its reason. */
  readonly signal?: AbortSignal;
}

/** undici reports its own timers with these codes; they are timeouts like ours. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export class Transport {
  private readonly agent: Agent;
  private readonly origin: string;
  /** The service's host name, for the calls' spans. */
  private readonly host: string;
  private readonly basePath: string;
  /** Refuses plain http to a public host before the key is sent (service-address.ts). */
  private readonly guard: () => Promise<void>;
  /** Hides the key in every string the service sends back (redact.ts). */
  private readonly redact: Redactor;

  private readonly options: TransportOptions;

  constructor(options: TransportOptions) {
    this.options = options;

    const url = new URL(options.baseUrl.replace(/\/+$/, ''));
    this.origin = url.origin;
    this.host = url.hostname;
    this.basePath = url.pathname;
    this.guard = cleartextGuard(url.href);
    this.redact = secretRedactor(options.apiKey);
    this.agent = new Agent({ connections: options.connections, keepAliveTimeout: 10_000 });
  }

  /** Sends a call and parses a 2xx JSON body with `schema`; an empty body parses as `undefined`. */
  async json<S extends z.ZodType>(call: Call, schema: S): Promise<z.infer<S>> {
    const context = this.context(call);
    return this.exchange(call, context, async (body, span) => {
      const value = redactDeep(parseJson(await body.text(), context), this.redact);
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw invalidResponse(context, summariseIssues(parsed.error));
      noteResponse(span, parsed.data);
      return parsed.data;
    });
  }

  /** Like json() but hands the raw JSON value to `parse`, whose exceptions become INVALID_RESPONSE. */
  async parsed<T>(call: Call, parse: (value: unknown) => T): Promise<T> {
    const context = this.context(call);
    return this.exchange(call, context, async (body, span) => {
      const text = await body.text();
      try {
        const value = parse(redactDeep(parseJson(text, context), this.redact));
        noteResponse(span, value);
        return value;
      } catch (error) {
        if ((error as ServiceError).name === 'ServiceError') throw error;
        throw invalidResponse(context, summariseIssues(error));
      }
    });
  }

  /**
   * Opens a long-lived response (SSE). The timeout covers connecting and the response headers; the
   * body may then last as long as the prediction, with at most `idleMs` between chunks.
   */
  async open(call: Call, idleMs: number): Promise<OpenResponse> {
    const context = this.context(call);
    let body: OpenResponse['body'] | undefined;
    await this.exchange(
      call,
      context,
      async (response, span) => {
        body = response;
        // The span lasts as long as the stream: a wait ends when its events do. The reader lets
        // go of the stream (an abort) once it has the prediction's end: that is no failure.
        response.once('error', (error) => endCallSpan(span, isAbort(error) ? undefined : error));
        response.once('close', () => {
          if (span.isRecording()) endCallSpan(span);
        });
      },
      idleMs,
    );
    return { body: body!, call: context, ...(call.signal ? { signal: call.signal } : {}) };
  }

  context(call: Call): CallContext {
    return {
      endpoint: `${call.method} ${this.basePath}${call.path}`,
      createsSomething: call.createsSomething ?? false,
      redact: this.redact,
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  /**
   * One request, in its span (call-span.ts); a stream's span ends with the stream (open()).
   * `consume` runs on a 2xx body while the timeout still applies (unless `idleMs` is given: then
   * the timer stops at the headers and undici's body timeout guards the stream).
   */
  private async exchange<T>(
    call: Call,
    context: CallContext,
    consume: (body: Dispatcher.ResponseData['body'], span: Span) => Promise<T>,
    idleMs?: number,
  ): Promise<T> {
    const span = startCallSpan(call.method, `${this.basePath}${call.path}`, this.host, call.trace);
    try {
      const result = await inCallSpan(span, () =>
        this.untracedExchange(call, context, span, consume, idleMs),
      );
      if (idleMs === undefined) endCallSpan(span);
      return result;
    } catch (error) {
      endCallSpan(span, error);
      throw error;
    }
  }

  private async untracedExchange<T>(
    call: Call,
    context: CallContext,
    span: Span,
    consume: (body: Dispatcher.ResponseData['body'], span: Span) => Promise<T>,
    idleMs?: number,
  ): Promise<T> {
    const timer = new AbortController();
    const timeout = setTimeout(
      () => timer.abort(new Error(`no reply within ${this.options.timeoutMs} ms`)),
      this.options.timeoutMs,
    );
    const signal = call.signal ? AbortSignal.any([call.signal, timer.signal]) : timer.signal;
    let sent = false;
    try {
      await this.guard();
      const response = await this.send(call, signal, idleMs, () => {
        sent = true;
      });
      if (idleMs !== undefined) clearTimeout(timeout);
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 400) {
        const text = await response.body.text();
        throw errorFromResponse(response.statusCode, response.headers, text, context);
      }
      return await consume(response.body, span);
    } catch (error) {
      if ((error as Error)?.name === 'ServiceError') throw error;
      // The caller's own cancellation is not a service failure: surface its reason unchanged.
      if (call.signal?.aborted) throw call.signal.reason;
      const code = (error as { code?: unknown })?.code;
      const timedOut = timer.signal.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code));
      throw errorFromTransport(error, sent, timedOut, context);
    } finally {
      clearTimeout(timeout);
    }
  }

  private send(
    call: Call,
    signal: AbortSignal,
    idleMs: number | undefined,
    onSent: () => void,
  ): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: call.accept ?? 'application/json',
      'user-agent': 'mediaflow',
    };
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
    const query = Object.fromEntries(
      Object.entries(call.query ?? {}).filter(
        (entry): entry is [string, string | number] => entry[1] !== undefined,
      ),
    );
    const dispatcher = new SendTracker(this.agent, onSent);
    return dispatcher.request({
      origin: this.origin,
      path: `${this.basePath}${call.path}`,
      method: call.method,
      headers,
      query,
      body,
      signal,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: idleMs ?? this.options.timeoutMs,
    });
  }
}

/**
 * Tells when undici has written the whole request to the socket, the line between "surely not
 * received" and "maybe received". undici calls `onRequestSent` on a request's handler at exactly
 * that point; this dispatcher adds that hook to the handler of `request()` and forwards the rest.
 */
class SendTracker extends Dispatcher {
  private readonly inner: Dispatcher;
  private readonly onSent: () => void;

  constructor(inner: Dispatcher, onSent: () => void) {
    super();
    this.inner = inner;
    this.onSent = onSent;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const onSent = this.onSent;
    const tracked = new Proxy(handler as Dispatcher.DispatchHandler & { onRequestSent?: () => void }, {
      get(target, property) {
        if (property === 'onRequestSent') {
          return () => {
            onSent();
            target.onRequestSent?.();
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return this.inner.dispatch(options, tracked);
  }
}

function isAbort(error: unknown): boolean {
  return (error as { name?: unknown })?.name === 'AbortError';
}

function parseJson(text: string, context: CallContext): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw invalidResponse(context, `not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
}

function summariseIssues(error: unknown): string {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] })?.issues;
  if (!Array.isArray(issues)) return error instanceof Error ? error.message : String(error);
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
}

/**
 * The span of one call to the service (transport.ts opens and ends it): the HTTP attributes, the
 * GenAI ones a create or a wait names (service-client.ts), and the call's outcome by name: `ok`,
 * or the ServiceError's code in lower case (`rate_limited`, `content_refused`, `timeout`, …).
 * Never a header, a query string or a body: the key travels in a header, links' tokens in query
 * strings, and messages are already redacted where errors are made (errors.ts).
 */
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, OK } from '../../telemetry/attributes.ts';
import { promptsTraced } from '../../telemetry/settings.ts';
import { droppedParent, tracer } from '../../telemetry/spans.ts';

/** What a call's span says beyond HTTP: set by the endpoint that knows (service-client.ts). */
export interface CallTrace {
  /** Low-cardinality: `create prediction`, `wait prediction`; ids go in attributes. */
  readonly name: string;
  /** gen_ai.operation.name. */
  readonly operation?: string;
  /** The model's path on the service (gen_ai.request.model) and its catalogue label. */
  readonly model?: string;
  readonly label?: string;
  readonly predictionId?: string;
  /** Kept only with MEDIAFLOW_TRACE_PROMPTS=1. */
  readonly prompt?: string;
}

/** The call's span; under a dropped one (telemetry/spans.ts), that span, which records nothing. */
export function startCallSpan(method: string, path: string, host: string, about?: CallTrace): Span {
  const dropped = droppedParent();
  if (dropped) return dropped;
  const span = tracer().startSpan(about?.name ?? `HTTP ${method}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': method,
      'url.path': path,
      'server.address': host,
      ...(about?.operation ? { [ATTR.operation]: about.operation } : {}),
      ...(about?.model ? { [ATTR.model]: about.model } : {}),
      ...(about?.label ? { [ATTR.modelLabel]: about.label } : {}),
      ...(about?.predictionId ? { [ATTR.responseId]: about.predictionId } : {}),
    },
  });
  if (about?.prompt !== undefined && span.isRecording() && promptsTraced()) {
    span.setAttribute(ATTR.prompt, about.prompt);
  }
  return span;
}

/** Runs `work` with `span` as the active span (the store's and any nested call's parent). */
export function inCallSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  if (span === trace.getActiveSpan()) return work();
  return context.with(trace.setSpan(context.active(), span), work);
}

/** The prediction a create answered with, when the answer names one. */
export function noteResponse(span: Span, value: unknown): void {
  if (!span.isRecording() || value === null || typeof value !== 'object') return;
  const id = (value as { id?: unknown }).id;
  if (typeof id === 'string') span.setAttribute(ATTR.responseId, id);
}

export function endCallSpan(span: Span, error?: unknown): void {
  if (error === undefined) {
    span.setAttribute(ATTR.outcome, OK);
  } else {
    const code = (error as { code?: unknown })?.code;
    const outcome = typeof code === 'string' ? code.toLowerCase() : 'error';
    span.setAttribute(ATTR.outcome, outcome);
    span.setAttribute('error.type', outcome);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : outcome });
  }
  span.end();
}

/**
 * Spans of mediaflow's own code, through OpenTelemetry's API alone: until a process starts the SDK
 * (telemetry/sdk.ts) the tracer is the API's no-op one, whose spans record nothing.
 */
import {
  type Attributes,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { ATTR, OK } from './attributes.ts';

/**
 * mediaflow's tracer, asked for at each span: a tracer kept in a variable stays bound to the
 * provider it first met, even once that one is unregistered and another registered (tests do).
 */
export function tracer(): Tracer {
  return trace.getTracer('mediaflow');
}

export interface SpanOptions<T> {
  readonly kind?: SpanKind;
  /** Names the outcome of work that returned (a batch whose items were refused); default `ok`. */
  readonly outcomeOfResult?: (result: T) => string;
  /**
   * Names the outcome of a failure (`rate_limited`); by default `error`. The span's status is
   * ERROR either way, with the error's message (already free of secrets where it is made).
   */
  readonly outcomeOf?: (error: unknown) => string;
}

/**
 * The active span when this process chose not to record it, so that every span started under it is
 * dropped too: each sampler mediaflow offers decides a child of a local span as its parent was
 * decided (the `parentbased_*` ones follow the parent, `traceidratio` decides by the trace id they
 * share, `always_on` drops nothing). A span under it is then not made at all, nor its context
 * switched to: under `parentbased_batchratio` at 0.1, nine batches in ten are dropped, and a
 * span for each of their store and service calls was most of what tracing cost the worker's main
 * thread (docs/benchmarks.md, "Tracing overhead"). A remote parent is left to the sampler, which
 * may record under it (`always_on`).
 */
export function droppedParent(): Span | undefined {
  const active = trace.getActiveSpan();
  if (active === undefined || active.isRecording()) return undefined;
  const { traceFlags, isRemote } = active.spanContext();
  return isRemote || (traceFlags & TraceFlags.SAMPLED) !== 0 ? undefined : active;
}

/**
 * Runs `work` inside a span named `name`, ended when it settles, its `mediaflow.outcome` set to
 * `ok` (or what `outcomeOfResult` names) or the failure's outcome. Under a dropped span, `work`
 * gets that span, which records nothing.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  options: SpanOptions<T> = {},
): Promise<T> {
  const dropped = droppedParent();
  if (dropped) return work(dropped);
  return tracer().startActiveSpan(
    name,
    { attributes, kind: options.kind ?? SpanKind.INTERNAL },
    async (span) => {
      try {
        const result = await work(span);
        span.setAttribute(ATTR.outcome, options.outcomeOfResult?.(result) ?? OK);
        span.end();
        return result;
      } catch (error) {
        endFailed(span, error, options.outcomeOf?.(error) ?? 'error');
        throw error;
      }
    },
  );
}

/** Ends a span with a failure, by its named outcome. */
export function endFailed(span: Span, error: unknown, outcome: string): void {
  span.setAttribute(ATTR.outcome, outcome);
  span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
  span.end();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export { SpanKind };

/**
 * The root span of a `mediaflow` command (`mediaflow run`): every span the command makes, and the
 * workflow it starts, belong to its trace. `endTracing` ends it and sends what is buffered, once:
 * at the command's end, or before a command ends its process at once (process.exit skips every
 * pending promise, the exporter's too).
 */
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, OK } from './attributes.ts';
import { processTracing } from './process-tracing.ts';
import { tracer } from './spans.ts';

let open: Span | null = null;

/** Runs `work` inside the command's span, when this process traces; else just runs it. */
export async function traceCommand<T>(
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!(await processTracing())) return work();
  const span = tracer().startSpan(`mediaflow ${name}`, { kind: SpanKind.CLIENT, attributes });
  open = span;
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
}

/**
 * Adds what the command learned (its campaign) to its span, and returns the span's trace id for
 * the user to look the trace up by; null when not tracing or not sampled.
 */
export function tagCommand(attributes: Attributes): string | null {
  if (!open?.isRecording()) return null;
  open.setAttributes(attributes);
  return open.spanContext().traceId;
}

/**
 * Ends the command's span, its outcome named by the exit code (`ok` for 0, else `exit_<code>`),
 * then flushes and stops the SDK. Without tracing, nothing.
 */
export async function endTracing(exitCode = Number(process.exitCode ?? 0)): Promise<void> {
  // A tracing that could not start (a bad OTEL_TRACES_SAMPLER) was the command's error already.
  const tracing = await processTracing().catch(() => null);
  if (!tracing) return;
  if (open) {
    open.setAttribute(ATTR.outcome, exitCode === 0 ? OK : `exit_${exitCode}`);
    open.setAttribute('process.exit.code', exitCode);
    if (exitCode !== 0) open.setStatus({ code: SpanStatusCode.ERROR });
    open.end();
    open = null;
  }
  await tracing.shutdown().catch(() => {});
}

/**
 * The sink through which the workflow sandbox's spans reach this process's exporter. Temporal's
 * workflow interceptors run in the sandbox on their own, older OpenTelemetry SDK, and send their
 * finished spans in its shape: the parent as `parentSpanId`, the scope as `instrumentationLibrary`.
 * This process's SDK and its OTLP exporter read `parentSpanContext` and `instrumentationScope`,
 * so the spans are rebuilt here (the package's own makeWorkflowExporter passes them on unchanged,
 * and every workflow span would arrive parentless).
 */
import { createTraceState, type SpanContext } from '@opentelemetry/api';
import type {
  OpenTelemetryWorkflowExporter,
  SerializableSpan,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { InjectedSink } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { ReadableSpan, Resource, SpanProcessor } from '../../telemetry/sdk.ts';

/** A span from the sandbox as this SDK has them, with the workflow it ran in. */
export function fromSandbox(span: SerializableSpan, info: WorkflowInfo, resource: Resource): ReadableSpan {
  const { traceState, ...context } = span.spanContext;
  const own: SpanContext = {
    ...context,
    ...(traceState ? { traceState: createTraceState(traceState) } : {}),
  };
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => own,
    ...(span.parentSpanId
      ? { parentSpanContext: { traceId: own.traceId, spanId: span.parentSpanId, traceFlags: own.traceFlags } }
      : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: {
      ...span.attributes,
      temporalWorkflowId: info.workflowId,
      run_id: info.runId,
      'temporal.workflow.type': info.workflowType,
    },
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource,
    instrumentationScope: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** The `exporter` sink the workflow interceptors call (not during replay: spans go out once). */
export function workflowSpanSink(
  processor: SpanProcessor,
  resource: Resource,
): InjectedSink<OpenTelemetryWorkflowExporter> {
  return {
    export: {
      fn: (info, spans) => {
        for (const span of spans) processor.onEnd(fromSandbox(span, info, resource));
      },
    },
  };
}

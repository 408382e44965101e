/**
 * The workflow sandbox's spans reach the exporter with their parents (worker/tracing/workflow-
 * sink.ts): Temporal's workflow interceptors run an older OpenTelemetry SDK, whose spans name
 * their parent `parentSpanId`, where this SDK and its OTLP exporter read `parentSpanContext`.
 */
import { SpanKind } from '@opentelemetry/api';
import type { SerializableSpan } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { WorkflowInfo } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { workflowSpanSink } from '../../worker/tracing/workflow-sink.ts';
import { inMemoryTracing } from './in-memory-tracing.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

/** A span as the sandbox sends it (SerializableSpan: the older SDK's shape). */
const sandboxSpan = (name: string, spanId: string, parentSpanId?: string): SerializableSpan => ({
  name,
  kind: SpanKind.INTERNAL,
  spanContext: { traceId: TRACE, spanId, traceFlags: 1, traceState: 'vendor=1' },
  ...(parentSpanId ? { parentSpanId } : {}),
  startTime: [1_700_000_000, 0],
  endTime: [1_700_000_001, 0],
  status: { code: 0 },
  attributes: { temporalActivityId: '1' },
  links: [],
  events: [],
  duration: [1, 0],
  ended: true,
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0,
  instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
});

describe('the workflow span sink', () => {
  it('exports the sandbox’s spans with their parent, scope, trace state and workflow', () => {
    const memory = inMemoryTracing();
    const sink = workflowSpanSink(memory.processor, memory.resource);
    const info = { workflowId: 'mediaflow-c', runId: 'r1', workflowType: 'campaignWorkflow' };
    sink.export.fn(info as WorkflowInfo, [
      sandboxSpan('RunWorkflow:campaignWorkflow', 'b7ad6b7169203331', '00f067aa0ba902b7'),
      sandboxSpan('StartActivity:createPredictions', 'c7ad6b7169203332', 'b7ad6b7169203331'),
    ]);
    const [run, start] = memory.spans();
    expect(run!.parentSpanContext).toMatchObject({ traceId: TRACE, spanId: '00f067aa0ba902b7' });
    expect(start!.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
    expect(start!.instrumentationScope.name).toBe('@temporalio/interceptor-workflow');
    expect(start!.spanContext().traceState?.get('vendor')).toBe('1');
    expect(start!.attributes).toMatchObject({ temporalWorkflowId: 'mediaflow-c', run_id: 'r1' });
    expect(start!.resource.attributes['service.name']).toBe('mediaflow-test');
  });

  it('leaves a root span without a parent', () => {
    const memory = inMemoryTracing();
    const sink = workflowSpanSink(memory.processor, memory.resource);
    const info = { workflowId: 'w', runId: 'r', workflowType: 't' };
    sink.export.fn(info as WorkflowInfo, [sandboxSpan('RunWorkflow:t', 'b7ad6b7169203331')]);
    expect(memory.spans()[0]!.parentSpanContext).toBeUndefined();
  });
});

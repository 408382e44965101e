/**
 * The OpenTelemetry SDK for one process, configured by the standard environment variables: the
 * OTLP endpoint (the exporter reads OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT and _HEADERS itself), the
 * resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), the sampler (OTEL_TRACES_SAMPLER).
 * Loaded only when tracing is asked for (telemetry/process-tracing.ts imports this dynamically).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  detectResources,
  envDetector,
  type Resource,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { samplerFromEnv } from './sampler.ts';
import { DEFAULT_SERVICE_NAME } from './settings.ts';

/** The SDK's types the worker's sink builds spans with (worker/tracing/workflow-sink.ts). */
export type { ReadableSpan, Resource, SpanProcessor };

export interface Tracing {
  readonly resource: Resource;
  /** Where finished spans go: the workflow sandbox's too (worker/tracing/workflow-sink.ts). */
  readonly processor: SpanProcessor;
  /** Sends what is still buffered; a process calls it before it exits. */
  flush(): Promise<void>;
  /** Flushes, stops exporting, and unregisters the global provider. */
  shutdown(): Promise<void>;
}

export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing {
  const resource = resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter() });
  const provider = new TracerProvider({
    resource,
    sampler: samplerFromEnv(env),
    spanProcessors: [processor],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    resource,
    processor,
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

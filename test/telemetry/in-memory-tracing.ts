/**
 * The SDK registered for one test with an in-memory exporter: what a tracing process would send,
 * read back in the test. Unregistered when the test ends (files share their process).
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { onTestFinished } from 'vitest';

export function inMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  const resource = resourceFromAttributes({ 'service.name': 'mediaflow-test' });
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  onTestFinished(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  return { exporter, processor, resource, spans: () => exporter.getFinishedSpans() };
}

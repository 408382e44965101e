/**
 * The SDK registered for one test with an in-memory exporter: what a tracing process would send,
 * read back in the test. Unregistered when the test ends (files share their process).
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  type Sampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { onTestFinished } from 'vitest';

/** `sampler`: the SDK's default (parentbased_always_on) unless given. */
export function inMemoryTracing(sampler?: Sampler) {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  const resource = resourceFromAttributes({ 'service.name': 'mediaflow-test' });
  const provider = new TracerProvider({
    resource,
    spanProcessors: [processor],
    ...(sampler ? { sampler } : {}),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  onTestFinished(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  return { exporter, processor, resource, spans: () => exporter.getFinishedSpans() };
}

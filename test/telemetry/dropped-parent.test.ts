/**
 * Under a span the sampler dropped, mediaflow's store and service-call spans are not made at all
 * (telemetry/spans.ts droppedParent): what reaches the exporter must be exactly what the SDK
 * would have sent had they been made, under every sampler mediaflow offers.
 */
import { context, ROOT_CONTEXT, type Span, TraceFlags, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { endCallSpan, inCallSpan, startCallSpan } from '../../api/client/call-span.ts';
import { samplerFromEnv } from '../../telemetry/sampler.ts';
import { droppedParent, inSpan, tracer } from '../../telemetry/spans.ts';
import { inMemoryTracing } from './in-memory-tracing.ts';

/** A store read and a service call under `parent`, the call's span active for the read within it. */
async function childrenOf(parent: Span): Promise<{ activeInRead: Span | undefined }> {
  return context.with(trace.setSpan(context.active(), parent), async () => {
    const call = startCallSpan('POST', '/v1/predictions', 'service.test', { name: 'create prediction' });
    const activeInRead = await inCallSpan(call, () =>
      inSpan('store.read', { 'mediaflow.store.key': 'k' }, async () => trace.getActiveSpan()),
    );
    endCallSpan(call);
    return { activeInRead };
  });
}

const names = (spans: { name: string }[]) => spans.map((s) => s.name).sort();

describe('spans under a dropped parent', () => {
  it.each([
    ['parentbased_traceidratio', '0'],
    ['traceidratio', '0'],
    ['parentbased_always_off', ''],
    ['always_off', ''],
  ])('with %s %s: none are made, and the work runs under the dropped span', async (sampler, arg) => {
    const tracing = inMemoryTracing(
      samplerFromEnv({ OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: arg }),
    );
    const batch = tracer().startSpan('RunActivity:finishPredictions', {}, ROOT_CONTEXT);
    expect(batch.isRecording()).toBe(false);
    const { activeInRead } = await childrenOf(batch);
    batch.end();
    expect(activeInRead).toBe(batch);
    expect(tracing.spans()).toEqual([]);
  });

  it('under a recorded parent, both are made as its children', async () => {
    const tracing = inMemoryTracing(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_batchratio' }));
    const batch = tracer().startSpan('RunActivity:finishPredictions', {}, ROOT_CONTEXT);
    const { activeInRead } = await childrenOf(batch);
    batch.end();
    expect(droppedParent()).toBeUndefined();
    const spans = tracing.spans();
    expect(names(spans)).toEqual(['RunActivity:finishPredictions', 'create prediction', 'store.read']);
    const call = spans.find((s) => s.name === 'create prediction')!;
    const read = spans.find((s) => s.name === 'store.read')!;
    expect(call.parentSpanContext?.spanId).toBe(batch.spanContext().spanId);
    expect(read.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(activeInRead?.spanContext().spanId).toBe(read.spanContext().spanId);
  });

  it('under a parent that ended but was sampled, both are still made', async () => {
    const tracing = inMemoryTracing();
    const batch = tracer().startSpan('RunActivity:createPredictions', {}, ROOT_CONTEXT);
    batch.end();
    await childrenOf(batch);
    expect(names(tracing.spans())).toEqual([
      'RunActivity:createPredictions',
      'create prediction',
      'store.read',
    ]);
  });

  it('under a remote parent that was not sampled, the sampler decides (always_on records)', async () => {
    const tracing = inMemoryTracing(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_on' }));
    const remote = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    });
    await childrenOf(remote);
    expect(names(tracing.spans())).toEqual(['create prediction', 'store.read']);
  });
});

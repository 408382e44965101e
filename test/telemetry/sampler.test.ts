/** OTEL_TRACES_SAMPLER and its argument, by the specification's names (telemetry/sampler.ts). */
import { type Link, ROOT_CONTEXT, SpanKind, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { samplerFromEnv } from '../../telemetry/sampler.ts';

/** How many of 1,000 new traces the sampler keeps, each root with these links. */
function kept(env: NodeJS.ProcessEnv, links: Link[] = []): number {
  const sampler = samplerFromEnv(env);
  let count = 0;
  for (let i = 0; i < 1_000; i++) {
    const traceId = (i * 2654435761).toString(16).padStart(32, '0').slice(-32);
    const decision = sampler.shouldSample(
      ROOT_CONTEXT,
      traceId,
      'span',
      SpanKind.INTERNAL,
      {},
      links,
    ).decision;
    if (decision === SamplingDecision.RECORD_AND_SAMPLED) count += 1;
  }
  return count;
}

describe('samplerFromEnv', () => {
  it('keeps every trace by default, and none when told', () => {
    expect(kept({})).toBe(1_000);
    expect(kept({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(0);
    expect(kept({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(0);
  });

  it('keeps about the ratio asked for', () => {
    const share = kept({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    expect(share).toBeGreaterThan(150);
    expect(share).toBeLessThan(350);
    expect(kept({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(0);
  });

  it("keeps a campaign's own trace whole and the ratio of its batches' traces (parentbased_batchratio)", () => {
    const env = { OTEL_TRACES_SAMPLER: 'parentbased_batchratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
    const campaign = (traceFlags: number): Link[] => [
      {
        context: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags },
        attributes: { 'mediaflow.link': 'campaign' },
      },
    ];
    // A command's root, a workflow's: every one.
    expect(kept(env)).toBe(1_000);
    const batches = kept(env, campaign(TraceFlags.SAMPLED));
    expect(batches).toBeGreaterThan(50);
    expect(batches).toBeLessThan(150);
    // The batches of a campaign whose own trace is not kept: none, they would be orphans.
    expect(kept(env, campaign(TraceFlags.NONE))).toBe(0);
  });

  it('refuses a sampler or a ratio it does not know, saying what it takes', () => {
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(
      /OTEL_TRACES_SAMPLER=jaeger_remote .*parentbased_traceidratio/,
    );
    expect(() =>
      samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }),
    ).toThrow(/between 0 and 1/);
  });
});

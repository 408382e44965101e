/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, by the specification's table
 * (the SDK's TracerProvider takes a sampler object, not the variables). Default:
 * `parentbased_always_on`, so a worker keeps the decision of the command that started the campaign.
 * One of mediaflow's own beside them, `parentbased_batchratio`: the ratio for the batches' traces
 * alone, so a large campaign's trace stays whole while a share of its jobs is traced (the per-job
 * spans are most of tracing's cost: docs/benchmarks.md, "Tracing overhead").
 */
import { type Attributes, type Context, type Link, type SpanKind, TraceFlags } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

/**
 * A batch's trace (its root linked to the campaign's span that scheduled it, `mediaflow.link:
 * campaign`: worker/tracing/activity-spans.ts) by the ratio, and only when the campaign's is kept;
 * any other root, a command's or a workflow's, always.
 */
class BatchRatioSampler implements Sampler {
  readonly #ratio: Sampler;

  constructor(ratio: number) {
    this.#ratio = new TraceIdRatioBasedSampler(ratio);
  }

  shouldSample(
    context: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const campaign = links.find((link) => link.attributes?.['mediaflow.link'] === 'campaign');
    if (!campaign) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    if ((campaign.context.traceFlags & TraceFlags.SAMPLED) === 0)
      return { decision: SamplingDecision.NOT_RECORD };
    return this.#ratio.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `BatchRatioSampler{${this.#ratio.toString()}}`;
  }
}

const SAMPLERS = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (ratio: number) => new TraceIdRatioBasedSampler(ratio),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (ratio: number) =>
    new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
  parentbased_batchratio: (ratio: number) => new ParentBasedSampler({ root: new BatchRatioSampler(ratio) }),
} satisfies Record<string, (ratio: number) => Sampler>;

type SamplerName = keyof typeof SAMPLERS;

function isSamplerName(name: string): name is SamplerName {
  return Object.hasOwn(SAMPLERS, name);
}

export function samplerFromEnv(env: NodeJS.ProcessEnv = process.env): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  if (!isSamplerName(name)) {
    throw new Error(
      `OTEL_TRACES_SAMPLER=${name} is not a sampler mediaflow knows: use one of ${Object.keys(SAMPLERS).join(', ')}`,
    );
  }
  return SAMPLERS[name](ratioFrom(env.OTEL_TRACES_SAMPLER_ARG));
}

/** OTEL_TRACES_SAMPLER_ARG for the ratio samplers: a number in [0, 1], default 1. */
function ratioFrom(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 1;
  const ratio = Number(text);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new Error(`OTEL_TRACES_SAMPLER_ARG=${text} is not a ratio between 0 and 1`);
  }
  return ratio;
}

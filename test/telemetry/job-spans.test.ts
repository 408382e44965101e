/**
 * The spans a tracing worker makes per job of a batch (worker/tracing/job-spans.ts): one per job,
 * under the activity's span, named by the job's key, step and take, timed from the results'
 * clocks, with each outcome by name and only the failures as errors.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type {
  CreateOutcome,
  CreateRequest,
  FinishBatchItem,
  FinishBatchRequest,
} from '../../contract/activities.ts';
import type { PlannedJob } from '../../plan/types.ts';
import { tracer } from '../../telemetry/spans.ts';
import { createOutcomeName, finishOutcomeName, withJobSpans } from '../../worker/tracing/job-spans.ts';
import { inMemoryTracing } from './in-memory-tracing.ts';

const PLAN = { file: 'plan.json', digest: 'd', jobCount: 3 };
const jobOf = (i: number): PlannedJob => ({
  key: String(i).repeat(32),
  step: 'hero',
  name: `hero-${i}`,
  model: 'I1',
  input: { prompt: `secret prompt ${i}` },
  parent: null,
  usd: 40_000,
  vars: {},
  variant: 1,
});
const plans = { get: async () => ({ job: async (i: number) => jobOf(i) }) };
const ms = (time: [number, number]) => time[0] * 1_000 + time[1] / 1e6;

describe('job spans', () => {
  it('gives every job of a create batch its span: key, step, take, outcome; errors only for failures', async () => {
    const memory = inMemoryTracing();
    const startedAt = Date.now();
    const outcomes: CreateOutcome[] = [
      { kind: 'created', i: 0, predictionId: 'p-0', at: startedAt + 40 },
      { kind: 'rejected', i: 1, code: 'CONTENT_REFUSED', message: 'refused by policy', failure: 'rejected' },
      { kind: 'retry', i: 2, afterMs: 1_000 },
    ];
    const activities = withJobSpans(
      {
        createPredictions: async (_request: CreateRequest) => outcomes,
        finishPredictions: async (_request: FinishBatchRequest): Promise<FinishBatchItem[]> => [],
      },
      plans,
    );
    const request: CreateRequest = {
      campaign: 'c',
      plan: PLAN,
      outputDir: 'out',
      items: [
        { i: 0, regen: 0 },
        { i: 1, regen: 2 },
        { i: 2, regen: 0 },
      ],
    };
    await tracer().startActiveSpan('RunActivity:createPredictions', async (span) => {
      expect(await activities.createPredictions(request)).toBe(outcomes);
      span.end();
    });
    const spans = memory.spans();
    const activity = spans.find((s) => s.name === 'RunActivity:createPredictions')!;
    const jobs = spans.filter((s) => s.name === 'job create');
    expect(jobs.map((s) => s.attributes['mediaflow.job.key'])).toEqual([0, 1, 2].map((i) => jobOf(i).key));
    for (const span of jobs) expect(span.parentSpanContext?.spanId).toBe(activity.spanContext().spanId);
    expect(jobs.map((s) => s.attributes['mediaflow.outcome'])).toEqual([
      'ok',
      'content_refused',
      'rate_limited',
    ]);
    expect(jobs.map((s) => s.attributes['mediaflow.take'])).toEqual([0, 2, 0]);
    expect(jobs.map((s) => s.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
    ]);
    expect(jobs[1]!.status.message).toBe('refused by policy');
    expect(jobs[0]!.attributes['gen_ai.response.id']).toBe('p-0');
    expect(jobs[0]!.attributes['mediaflow.step']).toBe('hero');
    // The create's span ends when the service answered, not when the batch returned.
    expect(Math.round(ms(jobs[0]!.endTime) - ms(jobs[0]!.startTime))).toBeLessThanOrEqual(45);
    // No prompt unless asked for.
    expect(JSON.stringify(jobs.map((s) => s.attributes))).not.toContain('secret prompt');
  });

  it('holds a finished job’s wait and its download and record, and what it cost', async () => {
    const memory = inMemoryTracing();
    const startedAt = Date.now();
    const results: FinishBatchItem[] = [
      {
        kind: 'finished',
        outcome: { kind: 'succeeded', creditsUsed: 120_000, file: 'hero/hero-0.png' },
        heir: null,
        waitedMs: 300,
        at: startedAt + 500,
      },
      { kind: 'stopped', failure: 'disk_full', message: 'no space left' },
    ];
    const activities = withJobSpans(
      {
        createPredictions: async (_request: CreateRequest): Promise<CreateOutcome[]> => [],
        finishPredictions: async (_request: FinishBatchRequest) => results,
      },
      plans,
    );
    const item = { regen: 0, startedAt, resumed: false };
    await tracer().startActiveSpan('RunActivity:finishPredictions', async (span) => {
      await activities.finishPredictions({
        campaign: 'c',
        plan: PLAN,
        outputDir: 'out',
        items: [
          { ...item, i: 0, predictionId: 'p-0' },
          { ...item, i: 1, predictionId: 'p-1' },
        ],
      });
      span.end();
    });
    const spans = memory.spans();
    const [done, stopped] = spans.filter((s) => s.name === 'job finish');
    expect(done!.attributes).toMatchObject({ 'mediaflow.outcome': 'ok', 'mediaflow.cost_usd': 0.12 });
    expect(stopped!.attributes['mediaflow.outcome']).toBe('disk_full');
    expect(stopped!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no space left' });
    const under = spans.filter((s) => s.parentSpanContext?.spanId === done!.spanContext().spanId);
    const wait = under.find((s) => s.name === 'job wait')!;
    const download = under.find((s) => s.name === 'job download and record')!;
    // Created → ended, then ended → recorded: the times the result carries.
    expect(Math.round(ms(wait.endTime))).toBe(startedAt + 300);
    expect(Math.round(ms(download.startTime))).toBe(startedAt + 300);
    expect(Math.round(ms(download.endTime))).toBe(startedAt + 500);
  });

  it('makes no span when the activity’s is not recorded (a sampled-out batch)', async () => {
    const memory = inMemoryTracing();
    const activities = withJobSpans(
      {
        createPredictions: async (_request: CreateRequest): Promise<CreateOutcome[]> => [
          { kind: 'skipped', i: 0, reason: 'parent failed' },
        ],
        finishPredictions: async (_request: FinishBatchRequest): Promise<FinishBatchItem[]> => [],
      },
      plans,
    );
    await activities.createPredictions({
      campaign: 'c',
      plan: PLAN,
      outputDir: 'out',
      items: [{ i: 0, regen: 0 }],
    });
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(memory.spans()).toEqual([]);
  });

  it('names every outcome', () => {
    expect(createOutcomeName({ kind: 'unavailable', i: 0, reason: '503', since: 0, at: 0 })).toBe(
      'service_unavailable',
    );
    expect(createOutcomeName({ kind: 'cached', i: 0 })).toBe('cached');
    expect(finishOutcomeName({ kind: 'pending' })).toBe('pending');
    expect(
      finishOutcomeName({
        kind: 'finished',
        outcome: { kind: 'failed', creditsUsed: null, message: 'x', failure: 'download_failed' },
        heir: null,
        waitedMs: 1,
        at: 0,
      }),
    ).toBe('download_failed');
    expect(
      finishOutcomeName({
        kind: 'finished',
        outcome: { kind: 'canceled' },
        heir: null,
        waitedMs: null,
        at: 0,
      }),
    ).toBe('canceled');
  });
});

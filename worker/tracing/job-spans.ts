/**
 * One span per job of a batch activity, made when the activity returns, from the times its results
 * carry (worker clock): a create from the batch's start to the service's answer; a finish holding
 * its wait (created → ended) and its download and record (ended → finished). The activities stay
 * free of tracing: `withJobSpans` wraps the two batch activities of a tracing worker. The HTTP and
 * store spans the activities make run under the activity's span beside these, tied to them by the
 * prediction id (gen_ai.response.id).
 */
import { type Attributes, type Context, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import type {
  CreateItem,
  CreateOutcome,
  CreateRequest,
  FinishBatchItem,
  FinishBatchRequest,
  FinishBatchRequestItem,
} from '../../contract/activities.ts';
import type { PlanRef } from '../../contract/campaign.ts';
import type { PlannedJob } from '../../plan/types.ts';
import { ATTR, OK } from '../../telemetry/attributes.ts';
import { promptsTraced } from '../../telemetry/settings.ts';
import { tracer } from '../../telemetry/spans.ts';

const MICROS_PER_USD = 1_000_000;

/** The named outcome of a create, by its kind (contract/activities.ts). */
export function createOutcomeName(outcome: CreateOutcome): string {
  switch (outcome.kind) {
    case 'created':
      return OK;
    case 'cached':
    case 'skipped':
      return outcome.kind;
    case 'rejected':
      return outcome.code.toLowerCase();
    case 'retry':
      return 'rate_limited';
    case 'unavailable':
      return 'service_unavailable';
  }
}

/** The named outcome of a finish: `ok`, the failure's kind, `failed`, `canceled`, `stopped`, `pending`. */
export function finishOutcomeName(item: FinishBatchItem): string {
  if (item.kind === 'stopped') return item.failure;
  if (item.kind === 'pending') return 'pending';
  const { outcome } = item;
  if (outcome.kind === 'succeeded') return OK;
  if (outcome.kind === 'canceled') return 'canceled';
  return outcome.failure ?? 'failed';
}

/** The batch activities of `activities`, each adding its jobs' spans under the activity's span. */
export function withJobSpans<
  A extends {
    createPredictions(request: CreateRequest): Promise<CreateOutcome[]>;
    finishPredictions(request: FinishBatchRequest): Promise<FinishBatchItem[]>;
  },
>(activities: A, plans: PlanJobs): A {
  const traced =
    <R, T>(
      activity: (request: R) => Promise<T>,
      spans: (request: R, result: T, job: JobSpanContext) => Promise<void>,
    ) =>
    async (request: R): Promise<T> => {
      const parent = context.active();
      const startedAt = Date.now();
      const result = await activity(request);
      // Tracing never fails the activity: a plan unreadable now is the activity's business.
      if (trace.getSpan(parent)?.isRecording()) {
        await spans(request, result, { plans, parent, startedAt }).catch(() => {});
      }
      return result;
    };
  return {
    ...activities,
    createPredictions: traced(activities.createPredictions.bind(activities), createSpans),
    finishPredictions: traced(activities.finishPredictions.bind(activities), finishSpans),
  };
}

/** Where the jobs' keys, names and steps are read (the worker's PlanCache). */
export interface PlanJobs {
  get(ref: PlanRef): Promise<{ job(i: number): Promise<PlannedJob> }>;
}

export interface JobSpanContext {
  readonly plans: PlanJobs;
  /** The activity's span, parent of the job spans. */
  readonly parent: Context;
  /** When the activity started (worker clock, ms). */
  readonly startedAt: number;
}

export async function createSpans(
  request: CreateRequest,
  outcomes: readonly CreateOutcome[],
  { plans, parent, startedAt }: JobSpanContext,
): Promise<void> {
  const plan = await plans.get(request.plan);
  const items = new Map(request.items.map((item) => [item.i, item]));
  const ended = Date.now();
  for (const outcome of outcomes) {
    const item = items.get(outcome.i);
    const job = await plan.job(outcome.i);
    jobCreateSpan(parent, job, item, outcome, startedAt, 'at' in outcome ? outcome.at : ended);
  }
}

export async function finishSpans(
  request: FinishBatchRequest,
  results: readonly FinishBatchItem[],
  { plans, parent, startedAt }: JobSpanContext,
): Promise<void> {
  const plan = await plans.get(request.plan);
  const ended = Date.now();
  for (const [index, result] of results.entries()) {
    const item = request.items[index];
    if (!item) continue;
    const job = await plan.job(item.i);
    const at = result.kind === 'finished' ? result.at : ended;
    const span = tracer().startSpan(
      'job finish',
      {
        startTime: startedAt,
        attributes: { ...jobAttributes(job, item.regen), [ATTR.responseId]: item.predictionId },
      },
      parent,
    );
    const own = trace.setSpan(parent, span);
    if (result.kind === 'finished') {
      const waitEnd = result.waitedMs === null ? startedAt : item.startedAt + result.waitedMs;
      if (result.waitedMs !== null) {
        phase(own, 'job wait', Math.max(startedAt, item.startedAt), waitEnd, item.predictionId);
      }
      phase(own, 'job download and record', waitEnd, at, item.predictionId);
      if (result.outcome.kind !== 'canceled' && result.outcome.creditsUsed !== null) {
        span.setAttribute(ATTR.costUsd, result.outcome.creditsUsed / MICROS_PER_USD);
      }
      if (result.heir && item.heir) {
        const heir = await plan.job(item.heir.i);
        jobCreateSpan(
          parent,
          heir,
          item.heir,
          result.heir,
          waitEnd,
          'at' in result.heir ? result.heir.at : at,
        );
      }
    }
    end(span, finishOutcomeName(result), messageOf(result), at);
  }
}

function jobCreateSpan(
  parent: Context,
  job: PlannedJob,
  item: CreateItem | FinishBatchRequestItem['heir'] | undefined,
  outcome: CreateOutcome,
  from: number,
  to: number,
): void {
  const attributes: Attributes = {
    ...jobAttributes(job, item?.regen ?? 0),
    [ATTR.operation]: 'generate_content',
    [ATTR.modelLabel]: item?.model ?? job.model,
    ...(outcome.kind === 'created' ? { [ATTR.responseId]: outcome.predictionId } : {}),
    ...(item?.prompt !== undefined && promptsTraced() ? { [ATTR.prompt]: item.prompt } : {}),
  };
  const span = tracer().startSpan('job create', { startTime: from, attributes }, parent);
  end(span, createOutcomeName(outcome), outcome.kind === 'rejected' ? outcome.message : undefined, to);
}

function jobAttributes(job: PlannedJob, take: number): Attributes {
  return { [ATTR.jobKey]: job.key, [ATTR.jobName]: job.name, [ATTR.step]: job.step, [ATTR.take]: take };
}

function phase(parent: Context, name: string, from: number, to: number, predictionId: string): void {
  const span = tracer().startSpan(
    name,
    { startTime: from, attributes: { [ATTR.responseId]: predictionId } },
    parent,
  );
  span.end(Math.max(from, to));
}

/** Outcomes that are the campaign working as meant: named, but not errors. */
const NOT_ERRORS = new Set([OK, 'cached', 'skipped', 'pending', 'rate_limited', 'canceled']);

function end(span: Span, outcome: string, message: string | undefined, at: number): void {
  span.setAttribute(ATTR.outcome, outcome);
  if (!NOT_ERRORS.has(outcome)) {
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
  }
  span.end(at);
}

function messageOf(result: FinishBatchItem): string | undefined {
  if (result.kind === 'stopped') return result.message;
  if (result.kind === 'finished' && result.outcome.kind === 'failed') return result.outcome.message;
  return undefined;
}

/**
 * The span of each activity a tracing worker runs, in place of Temporal's activity interceptor
 * (whose span would always be a child of the workflow's): a small activity (the access check,
 * loading a page of jobs) is a child of the workflow's `StartActivity` span, in the campaign's
 * trace; a batch of jobs (createPredictions, finishPredictions) starts a trace of its own, linked
 * to the campaign's run that scheduled it (batch-activities.ts). A 100,000-job campaign thus keeps
 * a trace of its structure, and each batch a trace of its jobs' calls (docs/deployment.md,
 * "Tracing": why).
 */
import {
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import { extractContextFromHeaders } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { ATTR, OK } from '../../telemetry/attributes.ts';
import { tracer } from '../../telemetry/spans.ts';
import { BATCH_ACTIVITIES } from './batch-activities.ts';

export class ActivitySpans implements ActivityInboundCallsInterceptor {
  private readonly ctx: ActivityContext;

  constructor(ctx: ActivityContext) {
    this.ctx = ctx;
  }

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
    const { activityType, activityId, attempt, workflowExecution } = this.ctx.info;
    const scheduled: Context | undefined = extractContextFromHeaders(input.headers);
    const batch = BATCH_ACTIVITIES.has(activityType);
    const link = scheduled ? trace.getSpanContext(scheduled) : undefined;
    const parent = batch ? ROOT_CONTEXT : (scheduled ?? context.active());
    const span = tracer().startSpan(
      `RunActivity:${activityType}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          temporalActivityId: activityId,
          ...(workflowExecution
            ? { temporalWorkflowId: workflowExecution.workflowId, run_id: workflowExecution.runId }
            : {}),
          'temporal.activity.attempt': attempt,
          ...requestAttributes(input.args[0]),
        },
        ...(batch && link
          ? { links: [{ context: link, attributes: { 'mediaflow.link': 'campaign' } }] }
          : {}),
      },
      parent,
    );
    try {
      // The job spans (job-spans.ts) and every HTTP and store span of the activity are its children.
      const result = await context.with(trace.setSpan(parent, span), () => next(input));
      span.setAttribute(ATTR.outcome, OK);
      span.end();
      return result;
    } catch (error) {
      failed(span, error);
      throw error;
    }
  }
}
/** The campaign and the batch size, read from a request shaped like contract/activities.ts's. */
function requestAttributes(request: unknown): Record<string, string | number> {
  if (request === null || typeof request !== 'object') return {};
  const { campaign, items } = request as { campaign?: unknown; items?: unknown };
  return {
    ...(typeof campaign === 'string' ? { [ATTR.campaign]: campaign } : {}),
    ...(Array.isArray(items) ? { [ATTR.batchSize]: items.length } : {}),
  };
}

/** A failed activity by the failure's type (the failure policy's kind: `disk_full`, …). */
function failed(span: Span, error: unknown): void {
  const { type, message } = (error ?? {}) as { type?: unknown; message?: unknown };
  span.setAttribute(ATTR.outcome, typeof type === 'string' && type !== '' ? type : 'error');
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: typeof message === 'string' ? message : String(error),
  });
  span.end();
}

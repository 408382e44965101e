/**
 * The Temporal client's spans in a tracing process: Temporal's client interceptor (StartWorkflow,
 * SignalWorkflow, …, their context sent in the call's headers), without spans for queries and
 * describes: `run` polls its campaign's progress every second, which would make a long campaign's
 * trace one span per second.
 */

import type {
  Next,
  WorkflowClientInterceptor,
  WorkflowDescribeInput,
  WorkflowQueryInput,
} from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';

export class CampaignClientSpans extends OpenTelemetryWorkflowClientInterceptor {
  override query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>) {
    return next(input);
  }

  override describe(input: WorkflowDescribeInput, next: Next<WorkflowClientInterceptor, 'describe'>) {
    return next(input);
  }
}

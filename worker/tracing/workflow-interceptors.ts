/**
 * The workflow interceptors a tracing worker bundles into its workflow code (worker/workflow-
 * bundle.ts): Temporal's, which run the campaign's `RunWorkflow` span and a `StartActivity` span
 * per activity (their context travels to the activity in its headers) and export through the
 * `exporter` sink (workflow-sink.ts). Queries are left untraced: `run` and `status` ask for
 * progress every second, and a span each would fill the campaign's trace with nothing. A batch of
 * jobs is scheduled without a span (batch-activities.ts): its headers carry the run's context, so
 * its trace links to the run.
 */
import { headersWithContext } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type {
  ActivityInput,
  Next,
  QueryInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { BATCH_ACTIVITIES } from './batch-activities.ts';

class UntracedQueries extends OpenTelemetryInboundInterceptor {
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>) {
    return next(input);
  }
}

class UnspannedBatches extends OpenTelemetryOutboundInterceptor {
  override scheduleActivity(
    input: ActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ) {
    if (!BATCH_ACTIVITIES.has(input.activityType)) return super.scheduleActivity(input, next);
    return next({ ...input, headers: headersWithContext(input.headers) });
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new UntracedQueries()],
  outbound: [new UnspannedBatches()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});

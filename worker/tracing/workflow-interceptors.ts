/**
 * The workflow interceptors a tracing worker bundles into its workflow code (worker/workflow-
 * bundle.ts): Temporal's, which run the campaign's `RunWorkflow` span and a `StartActivity` span
 * per activity (their context travels to the activity in its headers) and export through the
 * `exporter` sink (workflow-sink.ts). Queries are left untraced: `run` and `status` ask for
 * progress every second, and a span each would fill the campaign's trace with nothing.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type {
  Next,
  QueryInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

class UntracedQueries extends OpenTelemetryInboundInterceptor {
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>) {
    return next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new UntracedQueries()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});

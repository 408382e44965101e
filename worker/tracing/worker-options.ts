/**
 * What a tracing worker adds: the activity spans (activity-spans.ts) and the sink the workflow
 * sandbox exports through (workflow-sink.ts) in its Worker options, its jobs' spans around the
 * batch activities (job-spans.ts), spans around its stores (store/traced.ts). Null when this
 * process does not trace, and then none of the tracing code or packages is loaded.
 */
import type { WorkerOptions } from '@temporalio/worker';
import type { ActivityDeps } from '../../activities/index.ts';
import { processTracing } from '../../telemetry/process-tracing.ts';
import type { withJobSpans } from './job-spans.ts';

export interface WorkerTracing {
  /** `activities`: whether the worker runs activities (the governors' worker runs none). */
  workerOptions(activities: boolean): Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  readonly withJobSpans: typeof withJobSpans;
  storesOf(storeOf: ActivityDeps['storeOf']): ActivityDeps['storeOf'];
}

export async function workerTracing(): Promise<WorkerTracing | null> {
  const tracing = await processTracing();
  if (!tracing) return null;
  const [{ ActivitySpans }, { workflowSpanSink }, { withJobSpans }, { tracedStore }] = await Promise.all([
    import('./activity-spans.ts'),
    import('./workflow-sink.ts'),
    import('./job-spans.ts'),
    import('../../store/traced.ts'),
  ]);
  return {
    workerOptions: (activities) => ({
      ...(activities ? { interceptors: { activity: [(ctx) => ({ inbound: new ActivitySpans(ctx) })] } } : {}),
      sinks: { exporter: workflowSpanSink(tracing.processor, tracing.resource) },
    }),
    withJobSpans,
    storesOf: (storeOf) => (location) => tracedStore(storeOf(location)),
  };
}

/** Whether workers of this process trace, so their workflow bundle needs the interceptors. */
export async function workersTrace(): Promise<boolean> {
  return (await processTracing()) !== null;
}

/**
 * Replays every run of a campaign (following continue-as-new) against today's workflow code: a
 * workflow that is not deterministic fails here, where a worker would have stalled on the first
 * replay after a crash or a cache eviction.
 */
import type { Client } from '@temporalio/client';
import type { OpenTelemetryWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import { type InjectedSinks, Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { workflowBundle } from '../../worker/workflow-bundle.ts';
import { quietRuntime } from './quiet-runtime.ts';

export interface ReplayReport {
  runs: number;
  /** One line per run that did not replay: its run id and the error. */
  failures: string[];
}

/**
 * A tracing process's bundle exports its spans through the `exporter` sink (worker/tracing/
 * workflow-sink.ts). A replay sends none (sinks are not called while replaying), but the SDK logs
 * an error for every call to a sink the worker lacks.
 */
const REPLAY_SINKS: InjectedSinks<{ exporter: OpenTelemetryWorkflowExporter }> = {
  exporter: { export: { fn: () => {} } },
};

/** `bundle`: the workflow code to replay against, when the caller has it (the test suite's). */
export async function replayCampaign(
  client: Client,
  workflowId: string,
  bundle?: WorkflowBundlePath,
): Promise<ReplayReport> {
  quietRuntime();
  bundle ??= await workflowBundle();
  const failures: string[] = [];
  let runs = 0;
  let runId: string | undefined;
  do {
    const handle = client.workflow.getHandle(workflowId, runId);
    const history = await handle.fetchHistory();
    runs++;
    const thisRun = runId ?? (await handle.describe()).runId;
    try {
      await Worker.runReplayHistory({ workflowBundle: bundle, sinks: REPLAY_SINKS }, history, workflowId);
    } catch (error) {
      failures.push(`${thisRun}: ${error instanceof Error ? error.message : String(error)}`);
    }
    runId =
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId);
  return { runs, failures };
}

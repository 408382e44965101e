/**
 * Clients read a running campaign's progress from its memo, never with a query: a query answered
 * by a worker that has not cached the run can make it apply part of the next workflow task early,
 * and the task then carries commands no replay makes (the bug-report history; docs/engine.md,
 * "Progress without queries").
 */
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { replayCampaign } from '../../bench/lib/replay.ts';
import { campaignView } from '../../control/campaign-view.ts';
import { temporalAddress } from '../helpers/temporal.ts';
import { harness } from './harness.ts';

const STILLS = `
version: 1
campaign: memo
concurrency: 2
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: 24
    input: { prompt: "Acme watch on slate", aspect_ratio: "1:1" }
`;

/** A client that notes the path of every call it makes to the server. */
async function recordingClient(calls: string[]): Promise<Client> {
  const record: Interceptor = (options, next) => {
    calls.push(options.method_definition.path);
    return new InterceptingCall(next(options));
  };
  const connection = await Connection.connect({ address: temporalAddress(), interceptors: [record] });
  onTestFinished(() => connection.close());
  return new Client({ connection });
}

describe('progress without queries', () => {
  it('a running campaign publishes its progress in the memo, read without a single query', async () => {
    const h = await harness({ timeScale: 1, latencyMs: 300, jitter: false });
    const plan = await h.plan(STILLS);
    const calls: string[] = [];
    const client = await recordingClient(calls);
    const seen: number[] = [];
    const final = await h.run(plan, async (handle) => {
      const watched = client.workflow.getHandle(handle.workflowId);
      for (let done = 0; done < 24; ) {
        const view = await campaignView(client, watched as typeof handle).catch(() => null);
        if (view && view.progress.outcome !== 'running') break;
        // Under load the server may not have seen the worker's first poll yet ("paused"): read on.
        if (view && !view.paused) {
          done = view.progress.steps[0]!.succeeded;
          seen.push(done);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    expect(final.outcome).toBe('completed');
    // It moved while it ran, and every reading came from the server's records.
    expect(new Set(seen).size).toBeGreaterThan(2);
    expect(calls.some((path) => path.endsWith('/DescribeWorkflowExecution'))).toBe(true);
    expect(calls.filter((path) => path.endsWith('/QueryWorkflow'))).toEqual([]);
    // The memo's events replay, and the last one holds the final outcome.
    const described = await h.temporal.workflow.getHandle(`mediaflow-${plan.campaign}`).describe();
    expect(described.memo?.progress).toMatchObject({ outcome: 'completed' });
    expect(await replayCampaign(h.temporal, `mediaflow-${plan.campaign}`)).toMatchObject({ failures: [] });
  });
});

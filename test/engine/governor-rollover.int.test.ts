/**
 * The rate governor lives as long as campaigns run on its key (days, with review gates), so it
 * continues as new: on a server suggesting it at 100 events, the governor's members and limits
 * must cross into the next run, and every run must replay. Its members here are two other idle
 * governors (any running workflow takes a signal it has no handler for), so no campaign is needed.
 */
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { describe, expect, it, onTestFinished } from 'vitest';
import { governorWorkflowId, limitsSignal, throttledSignal } from '../../contract/governor-messages.ts';
import { joinGovernor } from '../../control/governor.ts';
import { startDevServer } from '../../worker/dev-server.ts';
import { createGovernorWorker } from '../../worker/governor.ts';
import { suiteWorkflowBundle, temporalClient, workerConnection } from '../helpers/temporal.ts';

describe('rate governor across continue-as-new', () => {
  it('keeps its campaigns and limits, and every run replays', async () => {
    const server = await startDevServer({
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 100 },
    });
    onTestFinished(() => server.stop());
    const client = await temporalClient(server.address);
    const bundle = suiteWorkflowBundle();
    const worker = await createGovernorWorker({
      connection: await workerConnection(server.address),
      namespace: 'default',
      workflowBundle: bundle,
    });
    const governor = client.workflow.getHandle(governorWorkflowId('key'));
    const members = ['member-a', 'member-b'].map((key) => client.workflow.getHandle(governorWorkflowId(key)));
    /** Share signals a member has received so far. */
    const sharesOf = async (member: (typeof members)[number]) =>
      (await member.fetchHistory()).events?.filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'governor-share',
      ).length ?? 0;

    await worker.runUntil(async () => {
      for (const [i, member] of members.entries()) {
        // Each member is a governor of its own (idle); joining it to ours makes it a campaign there.
        await joinGovernor(client, `member-${'ab'[i]}`, { campaign: 'nobody', weight: 1, wants: 1 });
        await joinGovernor(client, 'key', { campaign: member.workflowId, weight: 1, wants: 10 });
      }
      // Every limit change sends both members a new share: about a dozen events each.
      for (let n = 0; n < 20; n++) {
        const limits = { createsPerSecond: 10 + (n % 2), maxInFlight: 20 };
        await governor.signal(limitsSignal, { campaign: members[0]!.workflowId, limits });
        await waitFor(async () => (await sharesOf(members[1]!)) > n);
      }
      const runs = await runIds(client, governor.workflowId);
      expect(runs.length).toBeGreaterThan(1);
      // The latest run still knows both members and the limits: a 429 met by one pauses the other.
      const before = await sharesOf(members[1]!);
      await governor.signal(throttledSignal, { campaign: members[0]!.workflowId, retryAfterMs: 500 });
      await waitFor(async () => (await sharesOf(members[1]!)) > before);
    });

    for (const runId of await runIds(client, governor.workflowId)) {
      const history = await client.workflow.getHandle(governor.workflowId, runId).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: bundle }, history, governor.workflowId);
    }
  }, 90_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every run of a workflow, the first one first (each run's start names the run it continues). */
async function runIds(client: Client, workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    runs.unshift(runId);
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runId =
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

/**
 * A cancel sent at the handover from an older engine (docs/engine.md, "Changing the workflow
 * safely"): it reaches the older run, which a newer engine's `startOrAttach` ends before the run
 * took it. The run that continues the campaign is canceled in its turn, rather than the campaign
 * going on as if nobody had asked.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PlanRef } from '../../contract/campaign.ts';
import { campaignHandle, planIdentity, startOrAttach, workflowIdOf } from '../../control/campaign.ts';
import { campaignInputOf } from '../../control/campaign-input.ts';
import { cancelAcrossRuns } from '../../control/cancel.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import { type Harness, harness } from '../engine/harness.ts';
import { reviewedSpec } from '../engine/review-client.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';

/** A run of the campaign as an older engine started it: no engine in its memo, and no worker yet. */
function olderRun(h: Harness, plan: Plan, ref: PlanRef) {
  return h.temporal.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
    workflowId: workflowIdOf(plan.campaign),
    taskQueue: h.taskQueue,
    args: [campaignInputOf(plan, ref)],
    memo: { planIdentity: planIdentity(plan) },
  });
}

describe('a cancel at the handover from an older engine', () => {
  it('cancels the run that continues the campaign, not only the run it reached', async () => {
    const h = await harness();
    // Reviewed: the campaign waits for a person, so only the cancel can end it.
    const plan = await h.plan(reviewedSpec('{}'));
    const ref = await storePlan(plan);
    const old = await olderRun(h, plan, ref);
    const handle = campaignHandle(h.temporal, plan.campaign);
    const served: string[] = [];
    // No worker serves the older run: the request waits there, then the newer engine ends it.
    const canceled = cancelAcrossRuns(h.temporal, handle, async (queue) => {
      served.push(queue);
    });
    await sleep(500);
    const queue = `${h.taskQueue}-upgraded`;
    const worker = await createMediaflowWorker({
      connection: h.connection,
      namespace: 'default',
      client: h.service,
      taskQueue: queue,
      workflowBundle: suiteWorkflowBundle(),
    });
    const view = await worker.runUntil(async () => {
      const started = await startOrAttach(h.temporal, plan, ref, queue);
      expect(started.continuedFrom).toBe(1);
      return canceled;
    });

    expect(view?.progress.outcome).toBe('canceled');
    expect(served).toEqual([h.taskQueue]);
    const runs = [old.firstExecutionRunId, (await handle.describe()).runId];
    expect(new Set(runs).size).toBe(2);
    // The older run was ended by the handover; the run that continues carried the cancel out.
    const older = await h.temporal.workflow.getHandle(handle.workflowId, old.firstExecutionRunId).describe();
    expect(older.status.name).toBe('TERMINATED');
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  }, 60_000);
});

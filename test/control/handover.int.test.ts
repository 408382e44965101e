/**
 * A decision or a cancel sent at the handover from an older engine (docs/engine.md, "Changing the
 * workflow safely"): it reaches the older run, which a newer engine's `startOrAttach` ends to
 * continue the campaign from its records. The server aborts the update (or drops the cancel
 * request) with its run; the client sends it again to the run that continues the campaign, which
 * takes it, or refuses a decision with a reason to retry when no run continues it in time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PlanRef } from '../../contract/campaign.ts';
import { ENGINE } from '../../contract/engine.ts';
import { campaignHandle, planIdentity, startOrAttach, workflowIdOf } from '../../control/campaign.ts';
import { campaignInputOf } from '../../control/campaign-input.ts';
import { cancelAcrossRuns } from '../../control/cancel.ts';
import { continuedReason } from '../../control/handover.ts';
import { decisionSender } from '../../control/review-decisions.ts';
import type { Plan } from '../../plan/types.ts';
import { readDecisions } from '../../records/decisions.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import { type Harness, harness } from '../engine/harness.ts';
import { keysOf, review, reviewedSpec, until } from '../engine/review-client.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';

const nothing = async () => {};

/** A run of the campaign as an older engine started it: no engine in its memo. */
function olderRun(h: Harness, plan: Plan, ref: PlanRef) {
  return h.temporal.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
    workflowId: workflowIdOf(plan.campaign),
    taskQueue: h.taskQueue,
    args: [campaignInputOf(plan, ref)],
    memo: { planIdentity: planIdentity(plan) },
  });
}

const workerOn = (h: Harness, taskQueue: string) =>
  createMediaflowWorker({
    connection: h.connection,
    namespace: 'default',
    client: h.service,
    taskQueue,
    workflowBundle: suiteWorkflowBundle(),
  });

describe('what is sent at the handover from an older engine', () => {
  it('a decision is taken by the run that continues the campaign, not lost with the run it reached', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('{}'));
    const ref = await storePlan(plan);
    const [kettle, lamp, watch] = keysOf(plan, 'still') as [string, string, string];
    // The older engine's run, its stills made and awaiting review.
    const old = await olderRun(h, plan, ref);
    await (await workerOn(h, h.taskQueue)).runUntil(async () => {
      // Its progress is in the memo once the worker ran its first task (asked before, it is a query).
      while ((await old.describe()).memo?.progress === undefined) await sleep(100);
      await until(h, old, (still) => still.awaiting_review === 3);
    });

    // Its worker gone, the decision waits on the older run, which the newer engine then ends.
    const handle = campaignHandle(h.temporal, plan.campaign);
    const decided = decisionSender(
      h.temporal,
      handle,
      nothing,
    )({ decisions: [{ key: kettle, action: 'approve' }] });
    await sleep(500);
    const queue = `${h.taskQueue}-upgraded`;
    const result = await (await workerOn(h, queue)).runUntil(async () => {
      const started = await startOrAttach(h.temporal, plan, ref, queue);
      expect(started.continuedFrom).toBe(1);
      expect(await decided).toEqual({ accepted: [kettle], refused: [] });
      await until(h, started.handle, (still) => still.awaiting_review === 2);
      await review(started.handle, [
        { key: lamp, action: 'reject' },
        { key: watch, action: 'reject' },
      ]);
      return started.handle.result();
    });

    expect(result.outcome).toBe('completed');
    expect(result.steps[0]).toMatchObject({ approved: 1, rejected: 2 });
    expect(result.steps[1]).toMatchObject({ succeeded: 1, skipped: 2 });
    expect([...(await readDecisions(plan.outputDir, plan.campaign)).keys()]).toContain(kettle);
  }, 60_000);

  it('a decision is refused with a reason to retry while no run continues the campaign yet', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('{}'));
    const ref = await storePlan(plan);
    const old = await olderRun(h, plan, ref);
    // Ended by a newer engine that has not started its own run yet.
    await old.terminate(continuedReason(1));
    const handle = campaignHandle(h.temporal, plan.campaign);
    const [kettle] = keysOf(plan, 'still') as [string];
    const refused = await decisionSender(h.temporal, handle, nothing, { ms: 1_000, everyMs: 100 })({
      decisions: [{ key: kettle, action: 'approve' }],
    }).catch((error: unknown) => error);
    expect((refused as Error).message).toBe(
      `campaign "${plan.campaign}" is being continued by engine ${ENGINE}: retry in a few seconds`,
    );
  });

  it('a cancel is carried out by the run that continues the campaign, not only the run it reached', async () => {
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
    const view = await (await workerOn(h, queue)).runUntil(async () => {
      const started = await startOrAttach(h.temporal, plan, ref, queue);
      expect(started.continuedFrom).toBe(1);
      return canceled;
    });

    expect(view?.progress.outcome).toBe('canceled');
    expect(served).toEqual([h.taskQueue]);
    // The older run was ended by the handover; the run that continues carried the cancel out.
    const older = await h.temporal.workflow.getHandle(handle.workflowId, old.firstExecutionRunId).describe();
    expect(older.status.name).toBe('TERMINATED');
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  }, 60_000);
});

/**
 * An upgrade continues a campaign from its records, not from its history (ARCHITECTURE.md,
 * decision 16; docs/engine.md, "Upgrades"): a run an older engine started (no engine in its memo,
 * its own task queue) is ended by the newer engine's `startOrAttach`, which starts its own run of
 * the same campaign; that run adopts the predictions in flight, keeps the review decisions and
 * pays for nothing twice. The older engine's worker is a `mediaflow worker` process, SIGKILLed
 * with predictions in flight as an upgrade that replaces the binary leaves it.
 */
import { describe, expect, it } from 'vitest';
import { ENGINE } from '../../contract/engine.ts';
import { NewerEngineError, planIdentity, startOrAttach, workflowIdOf } from '../../control/campaign.ts';
import { campaignInputOf } from '../../control/campaign-input.ts';
import { campaignProgress } from '../../control/campaign-view.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';
import { harness } from './harness.ts';
import { keysOf, review, reviewedSpec, until } from './review-client.ts';

describe('an upgrade', () => {
  it('continues an older engine’s campaign from its records: decisions kept, flights adopted, nothing paid twice', async () => {
    const h = await harness({ latencyMs: 2_000, jitter: false, timeScale: 1 });
    const plan = await h.plan(reviewedSpec('{ edit_prompt: true }'));
    const ref = await storePlan(plan);
    const [kettle, lamp, watch] = keysOf(plan, 'still') as [string, string, string];

    // The older engine's run: its memo names no engine, as every run before generations did.
    const old = await h.temporal.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
      workflowId: workflowIdOf(plan.campaign),
      taskQueue: h.taskQueue,
      args: [campaignInputOf(plan, ref)],
      memo: { planIdentity: planIdentity(plan) },
    });
    const oldWorker = h.spawnWorker();
    // Its progress is in the memo once the worker (a process starting up) ran its first task.
    for (let tries = 0; (await old.describe()).memo?.progress === undefined; tries++) {
      if (tries > 300) throw new Error('the older run never published its progress');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await until(h, old, (still) => still.awaiting_review === 3);
    await review(old, [
      { key: kettle, action: 'approve', by: 'ana' },
      { key: lamp, action: 'approve', by: 'ana' },
    ]);
    // Both approved stills' clips are created upstream (2 s each): kill the old worker now.
    for (let tries = 0; (h.emulator.ledger().byModel.V4 ?? 0) < 2; tries++) {
      if (tries > 200) throw new Error('the clips were never created');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    oldWorker.kill('SIGKILL');
    expect(h.emulator.ledger().byModel).toEqual({ I1: 3, V4: 2 });

    const queue = `${h.taskQueue}-upgraded`;
    const worker = await createMediaflowWorker({
      connection: h.connection,
      namespace: 'default',
      client: h.service,
      taskQueue: queue,
      workflowBundle: suiteWorkflowBundle(),
    });
    const result = await worker.runUntil(async () => {
      const started = await startOrAttach(h.temporal, plan, ref, queue);
      expect(started.continuedFrom).toBe(1);
      expect(started.attached).toBe(false);
      const { taskQueue, memo } = await started.handle.describe();
      expect({ taskQueue, engine: memo?.engine }).toEqual({ taskQueue: queue, engine: ENGINE });
      // The two approvals hold: only the watch still is asked about again.
      const asked = await until(h, started.handle, (still) => still.awaiting_review === 1);
      expect(asked.steps[0]).toMatchObject({ approved: 2, awaiting_review: 1 });
      expect((await review(started.handle, [{ key: watch, action: 'approve' }])).accepted).toEqual([watch]);
      return started.handle.result();
    });

    expect(result.outcome).toBe('completed');
    expect(result.steps[0]).toMatchObject({ approved: 3, awaiting_review: 0, failed: 0 });
    expect(result.steps[1]).toMatchObject({ failed: 0, skipped: 0 });
    expect((await h.manifest(plan)).map((line) => line.key).sort()).toEqual(
      plan.jobs.map((j) => j.key).sort(),
    );
    // One prediction per job: the clips in flight were adopted, not made again.
    const ledger = h.emulator.ledger();
    expect(ledger.byModel).toEqual({ I1: 3, V4: 3 });
    expect(ledger.duplicates).toBe(0);

    // The older run says why it ended, where the Temporal UI shows it.
    const history = await h.temporal.workflow
      .getHandle(old.workflowId, old.firstExecutionRunId)
      .fetchHistory();
    const last = history.events?.at(-1)?.workflowExecutionTerminatedEventAttributes;
    expect(last?.reason).toMatch(
      new RegExp(`^continued from its records by mediaflow engine ${ENGINE} \\(this run was engine 1\\)`),
    );
    // `status` and every other client read the campaign's latest run: the continued one.
    expect((await campaignProgress(h.temporal, plan.campaign)).progress.outcome).toBe('completed');
  });

  it('an older engine meeting a newer campaign refuses in one line', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('{}'));
    const ref = await storePlan(plan);
    await h.temporal.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
      workflowId: workflowIdOf(plan.campaign),
      taskQueue: h.taskQueue,
      args: [campaignInputOf(plan, ref)],
      memo: { planIdentity: planIdentity(plan), engine: ENGINE + 1 },
    });
    const refused = await startOrAttach(h.temporal, plan, ref, h.taskQueue).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NewerEngineError);
    expect((refused as Error).message).toBe(
      `campaign "${plan.campaign}" was started by a newer mediaflow (engine ${ENGINE + 1}; this one is engine ${ENGINE}): upgrade mediaflow to go on with it`,
    );
    await h.temporal.workflow.getHandle(workflowIdOf(plan.campaign)).terminate('test over');
  });
});

/**
 * The production topology, short: a campaign on a real Temporal cluster (PostgreSQL, one process
 * per service, started from deploy/temporal/ like docker-compose.yml) whose history service is
 * killed and started again while predictions are in flight, then PostgreSQL restarted and the
 * matching service killed and started. The campaign must still finish with every file, pay
 * for nothing twice, and leave histories that replay with no workflow task failed for
 * nondeterminism (the `cluster` drill's goals, bench/drills/cluster.ts, at the suite's size).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { workflowTaskFailures } from '../../bench/drills/cluster-checks.ts';
import { startCluster } from '../../bench/lib/cluster.ts';
import { replayCampaign } from '../../bench/lib/replay.ts';
import { CHAINED_SPEC, harness } from '../engine/harness.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';

const JOBS = 6;
/** Alone the campaign takes ~20 s; this leaves room for a loaded machine under the test's limit. */
const STUCK_MS = 180_000;

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe('a local Temporal cluster on PostgreSQL', () => {
  it('finishes a chained campaign through history and matching killed and PostgreSQL restarted, paying for nothing twice', async () => {
    const cluster = await startCluster();
    onTestFinished(async ({ task }) => {
      // A failure keeps the cluster's folder and prints what its services and PostgreSQL complained
      // of: a stall in a fresh-clone CI left nothing to read once the temp folder went.
      const failed = task.result?.state === 'fail';
      if (failed) console.error(`the cluster's logs are kept in ${cluster.dir}\n${await cluster.logTails()}`);
      await cluster.stop({ keepDir: failed });
    });
    // Every create counts (idempotency ignored): one more than the jobs is a prediction paid twice.
    // 2.5 s per prediction: the campaign (two steps chained) outlasts the three breakages.
    const h = await harness({
      temporalAddress: cluster.address,
      timeScale: 1,
      latencyMs: 2_500,
      jitter: false,
      ignoreIdempotency: true,
    });
    const plan = await h.plan(CHAINED_SPEC);
    let workflowId = '';
    let phase = 'starting';

    const run = h.run(plan, async (handle) => {
      workflowId = handle.workflowId;
      await until(() => h.emulator.ledger().predictionsCreated >= 1, 20_000);
      phase = 'history killed';
      await cluster.kill('history');
      // Mid-run: hero predictions in flight, no teaser created yet (each needs its hero's file).
      expect(h.emulator.ledger().predictionsCreated).toBeLessThan(JOBS);
      await cluster.start('history');
      phase = 'PostgreSQL restarting';
      await cluster.postgres.restart();
      phase = 'matching killed';
      await cluster.kill('matching');
      await cluster.start('matching');
      phase = 'matching started again';
      // The frontend answers once its membership has the new matching service again.
      expect(await describedStatus(handle)).toBe('RUNNING');
      phase = 'every breakage over, waiting for the campaign to end';
    });
    // A campaign that never ends fails with where it stood, not with the test's time-out alone
    // (it did once, under a load average of 9, and said nothing of why).
    const over = new AbortController();
    const progress = await Promise.race([
      run.finally(() => over.abort()),
      sleep(STUCK_MS, undefined, { signal: over.signal }).then(
        async () => {
          throw new Error(
            `not over after ${STUCK_MS} ms (${phase}): ${await standing(h.temporal, workflowId)}`,
          );
        },
        () => new Promise<never>(() => {}), // the run was over first
      ),
    ]);

    expect(progress.outcome).toBe('completed');
    expect(progress.steps.map((s) => [s.id, s.succeeded, s.failed])).toEqual([
      ['hero', 2, 0],
      ['teaser', 4, 0],
    ]);
    const ledger = h.emulator.ledger();
    expect(ledger).toMatchObject({ predictionsCreated: JOBS, duplicates: 0, failedPredictions: 0 });
    expect(parseUsd(ledger.creditsCharged)).toBe(progress.spent);
    expect(await h.manifest(plan)).toHaveLength(JOBS);
    // Workflow tasks may fail while history is down, never because the code took another path.
    expect((await workflowTaskFailures(h.temporal, workflowId)).nondeterministic).toBe(0);
    expect(await replayCampaign(h.temporal, workflowId, suiteWorkflowBundle())).toEqual({
      runs: 1,
      failures: [],
    });

    // SQL visibility answers a query on mediaflow's search attributes (deploy/temporal registers them).
    const query = `MediaflowCampaign="${plan.campaign}" AND MediaflowOutcome="completed"`;
    await until(async () => {
      for await (const _ of h.temporal.workflow.list({ query })) return true;
      return false;
    }, 10_000);
  }, 240_000); // Alone ~20 s; a loaded 2-core machine starts five server processes far slower.
});

/** The run's status once the cluster answers (UNAVAILABLE while a restarted service rejoins), within 30 s. */
async function describedStatus(handle: {
  describe(): Promise<{ status: { name: string } }>;
}): Promise<string> {
  for (let tries = 0; ; tries++) {
    try {
      return (await handle.describe()).status.name;
    } catch (error) {
      const said = `${error} ${error instanceof Error ? error.cause : ''}`;
      if (tries >= 60 || !said.includes('UNAVAILABLE')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** What the server says a run is waiting on: its pending workflow task and activities. */
async function standing(client: Client, workflowId: string): Promise<string> {
  if (!workflowId) return 'the campaign did not start';
  let described: Awaited<ReturnType<WorkflowHandle['describe']>>;
  try {
    described = await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    return `describe failed: ${error}`;
  }
  const { status, historyLength, raw } = described;
  const task = raw.pendingWorkflowTask;
  const activities = (raw.pendingActivities ?? []).map(
    (a) => `${a.activityType?.name} state ${a.state} attempt ${a.attempt} ${a.lastFailure?.message ?? ''}`,
  );
  return JSON.stringify({
    status: status.name,
    historyLength,
    workflowTask: task ? { state: task.state, attempt: task.attempt } : null,
    activities,
  });
}

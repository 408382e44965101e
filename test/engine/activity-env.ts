/** Runs the engine's activities one at a time (MockActivityEnvironment), as a worker would. */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../activities/index.ts';
import { createActivities } from '../../activities/index.ts';
import type { ServiceClient } from '../../api/client/index.ts';
import type {
  CreateOutcome,
  FinishBatchItem,
  FinishBatchRequest,
  FinishBatchRequestItem,
  FinishResult,
} from '../../contract/activities.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import { activityDeps } from '../../worker/create-worker.ts';
import type { Harness } from './harness.ts';

export type Activities = ReturnType<typeof createActivities>;

export function activitiesFor(h: Harness, overrides: Partial<Omit<ActivityDeps, 'client'>> = {}): Activities {
  return createActivities(activityDeps(h.service, overrides));
}

/** The run of the workflow that scheduled the activity: another one stands for a re-run. */
const FIRST_RUN = '00000000-0000-0000-0000-000000000001';

function environment(attempt: number, runId = FIRST_RUN, activityId?: string): MockActivityEnvironment {
  return new MockActivityEnvironment({
    attempt,
    scheduledTimestampMs: Date.now() - 1_000,
    workflowExecution: { workflowId: 'campaign', runId },
    ...(activityId !== undefined && { activityId }),
  });
}

/**
 * One attempt of the create activity for the jobs at `indices`, scheduled by the run `runId`
 * (as the activity `activityId`, else the mock's own).
 */
export async function create(
  h: Harness,
  plan: Plan,
  attempt: number,
  indices: number[],
  regen = 0,
  activities: Activities = activitiesFor(h),
  runId = FIRST_RUN,
  activityId?: string,
): Promise<CreateOutcome[]> {
  const ref = await storePlan(plan);
  const items = indices.map((i) => ({ i, regen }));
  return environment(attempt, runId, activityId).run(activities.createPredictions, {
    campaign: plan.campaign,
    plan: ref,
    outputDir: plan.outputDir,
    items,
  });
}

/** Creates job `i` and finishes it (waits, downloads, records). */
export async function createAndFinish(
  h: Harness,
  plan: Plan,
  i: number,
  activities: Activities = activitiesFor(h),
): Promise<{ created: CreateOutcome; finished: FinishResult | null }> {
  const [created] = await create(h, plan, 1, [i], 0, activities);
  if (created?.kind !== 'created') return { created: created!, finished: null };
  return { created, finished: await finish(h, plan, created, {}, activities) };
}

/**
 * One attempt of the finish activity for a created job, a batch of one, the item as the workflow
 * sends it with `extra`; a job the batch stopped (or left pending) is thrown as an error.
 */
export async function finish(
  h: Harness,
  plan: Plan,
  created: Extract<CreateOutcome, { kind: 'created' }>,
  extra: Partial<FinishBatchRequestItem> = {},
  activities: Activities = activitiesFor(h),
): Promise<FinishResult> {
  const [result] = await environment(1).run<
    [FinishBatchRequest],
    FinishBatchItem[],
    Activities['finishPredictions']
  >(activities.finishPredictions, {
    campaign: plan.campaign,
    plan: await storePlan(plan),
    outputDir: plan.outputDir,
    items: [
      {
        i: created.i,
        regen: 0,
        predictionId: created.predictionId,
        startedAt: created.at,
        resumed: false,
        ...extra,
      },
    ],
  });
  if (result?.kind !== 'finished') throw new Error(`the finish reported ${JSON.stringify(result)}`);
  const { kind: _, ...finished } = result;
  return finished;
}

export function cancelOutstanding(activities: Activities, plan: Plan): Promise<number> {
  return environment(1).run(activities.cancelOutstanding, {
    campaign: plan.campaign,
    outputDir: plan.outputDir,
  });
}

export const kinds = (outcomes: CreateOutcome[]) => outcomes.map((o) => o.kind);

export function predictionIdOf(outcome: CreateOutcome | undefined): string {
  if (outcome?.kind !== 'created')
    throw new Error(`expected a created outcome, got ${JSON.stringify(outcome)}`);
  return outcome.predictionId;
}

/**
 * The harness's client whose creates reach the service, then run `after` before answering: a
 * slow answer (it waits), or one lost on its way back (it throws).
 */
export function afterEachCreate(h: Harness, after: () => Promise<void>): ServiceClient {
  return {
    ...h.service,
    predictions: {
      ...h.service.predictions,
      async create(model, input, options) {
        const made = await h.service.predictions.create(model, input, options);
        await after();
        return made;
      },
    },
  };
}

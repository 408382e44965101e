/**
 * The predictions of one create batch finished by one activity (finishPredictions): each item's
 * result comes back on its own, and a failure that stops the campaign is reported for its item
 * without losing the results of the others (their files are recorded, so they must be counted).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { downloadFile } from '../../activities/download.ts';
import type { FinishBatchItem, FinishBatchRequest } from '../../contract/activities.ts';
import type { Plan } from '../../plan/types.ts';
import { storePlan } from '../../records/plan-store.ts';
import { type Activities, activitiesFor, create, predictionIdOf } from './activity-env.ts';
import { type Harness, harness, twoStills } from './harness.ts';

async function finishBoth(h: Harness, plan: Plan, activities: Activities): Promise<FinishBatchItem[]> {
  const created = await create(h, plan, 1, [0, 1], 0, activities);
  const request: FinishBatchRequest = {
    campaign: plan.campaign,
    plan: await storePlan(plan),
    outputDir: plan.outputDir,
    items: created.map((outcome, i) => ({
      i,
      regen: 0,
      predictionId: predictionIdOf(outcome),
      startedAt: Date.now(),
      resumed: false,
    })),
  };
  return new MockActivityEnvironment({ attempt: 1 }).run<
    [FinishBatchRequest],
    FinishBatchItem[],
    Activities['finishPredictions']
  >(activities.finishPredictions, request);
}

describe('finishPredictions', () => {
  it('finishes every prediction of the batch and records each file', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('batch'));
    const results = await finishBoth(h, plan, activitiesFor(h));
    expect(results.map((r) => r.kind)).toEqual(['finished', 'finished']);
    const manifest = await readFile(join(plan.outputDir, 'manifest.jsonl'), 'utf8');
    expect(manifest.trim().split('\n')).toHaveLength(2);
    for (const result of results) {
      expect(result).toMatchObject({ outcome: { kind: 'succeeded' }, heir: null });
    }
  });

  it('reports a full disk for its own item and the other item as finished', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('batch-full'));
    let downloads = 0;
    const activities = activitiesFor(h, {
      // The second download meets a full disk; the first lands.
      download: (url, target, options) =>
        downloads++ === 0
          ? downloadFile(url, target, options)
          : Promise.reject(
              Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
            ),
    });
    const results = await finishBoth(h, plan, activities);
    expect(results.map((r) => r.kind).sort()).toEqual(['finished', 'stopped']);
    expect(results.find((r) => r.kind === 'stopped')).toMatchObject({
      failure: 'disk_full',
      message: /ENOSPC/,
    });
    expect(results.find((r) => r.kind === 'finished')).toMatchObject({ outcome: { kind: 'succeeded' } });
  });
});

/**
 * The predictions of one create batch finished by one activity (finishPredictions): each item's
 * result comes back on its own, and a failure that stops the campaign is reported for its item
 * without losing the results of the others (their files are recorded, so they must be counted).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { downloadFile } from '../../activities/download.ts';
import { createActivities } from '../../activities/index.ts';
import { ServiceError } from '../../api/client/index.ts';
import type { FinishBatchItem, FinishBatchRequest } from '../../contract/activities.ts';
import type { Plan } from '../../plan/types.ts';
import { ManifestEntry } from '../../records/manifest.ts';
import { storePlan } from '../../records/plan-store.ts';
import { activityDeps } from '../../worker/create-worker.ts';
import { type Activities, activitiesFor, afterEachCreate, create, predictionIdOf } from './activity-env.ts';
import { type Harness, harness, twoStills } from './harness.ts';

async function finishBoth(h: Harness, plan: Plan, activities: Activities): Promise<FinishBatchItem[]> {
  return finishBatch(activities, await bothRequest(h, plan, activities));
}

async function bothRequest(h: Harness, plan: Plan, activities: Activities): Promise<FinishBatchRequest> {
  const created = await create(h, plan, 1, [0, 1], 0, activities);
  return {
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
}

function finishBatch(activities: Activities, request: FinishBatchRequest): Promise<FinishBatchItem[]> {
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

  it('reports a job that ended while another still downloads; the next batch joins the download under way', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('batch-early'));
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let downloads = 0;
    const activities = activitiesFor(h, {
      // The second download waits until the test lets it go: a slow CDN node.
      download: async (url, target, options) => {
        if (downloads++ === 1) await held;
        return downloadFile(url, target, options);
      },
    });
    const request = await bothRequest(h, plan, activities);
    const first = await finishBatch(activities, request);
    expect(first.map((r) => r.kind).sort()).toEqual(['finished', 'pending']);
    expect(first.find((r) => r.kind === 'finished')).toMatchObject({ outcome: { kind: 'succeeded' } });

    const rest = request.items.filter((_, n) => first[n]!.kind === 'pending');
    const second = finishBatch(activities, { ...request, items: rest });
    release();
    expect(await second).toMatchObject([{ kind: 'finished', outcome: { kind: 'succeeded' } }]);
    // Joined, not fetched again; each job recorded once.
    expect(downloads).toBe(2);
    const manifest = await readFile(join(plan.outputDir, 'manifest.jsonl'), 'utf8');
    expect(manifest.trim().split('\n')).toHaveLength(2);
  });

  it('creates each item’s heir the moment its prediction ends; a retry on another worker adopts them, never paying twice', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('batch-heirs').replace('repeat: 2', 'repeat: 4'));
    const activities = activitiesFor(h);
    const first = await bothRequest(h, plan, activities);
    const request = {
      ...first,
      items: first.items.map((item) => ({ ...item, heir: { i: item.i + 2, regen: 0 } })),
    };
    const results = await finishBatch(activities, request);
    expect(results).toMatchObject([
      { kind: 'finished', outcome: { kind: 'succeeded' }, heir: { kind: 'created', i: 2 } },
      { kind: 'finished', outcome: { kind: 'succeeded' }, heir: { kind: 'created', i: 3 } },
    ]);
    expect(h.emulator.ledger().predictionsCreated).toBe(4);
    // The same batch retried by another worker (its own shared work): the heirs are found, not made again.
    const again = await new MockActivityEnvironment({ attempt: 2 }).run<
      [FinishBatchRequest],
      FinishBatchItem[],
      Activities['finishPredictions']
    >(activitiesFor(h).finishPredictions, request);
    const heirIds = (items: FinishBatchItem[]) =>
      items.map((item) =>
        item.kind === 'finished' && item.heir?.kind === 'created' ? item.heir.predictionId : null,
      );
    expect(heirIds(again)).toEqual(heirIds(results));
    expect(h.emulator.ledger().predictionsCreated).toBe(4);
  });

  it('an heir the service made but answered with a 503 is adopted on the next try: the batch still reports both items, paying once', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('batch-heir-503').replace('repeat: 2', 'repeat: 4'));
    const first = await bothRequest(h, plan, activitiesFor(h));
    // The first heir's create reaches the service, whose answer is lost in a 503.
    let lost = 1;
    const flaky = afterEachCreate(h, async () => {
      if (lost-- > 0)
        throw new ServiceError({
          message: 'the service is temporarily unavailable',
          status: 503,
          type: 'api_error',
          code: 'SERVICE_UNAVAILABLE',
          retryable: true,
          maybeCreated: true,
        });
    });
    const request = {
      ...first,
      items: first.items.map((item) => ({ ...item, heir: { i: item.i + 2, regen: 0 } })),
    };
    const results = await finishBatch(createActivities(activityDeps(flaky)), request);
    expect(lost).toBe(-1);
    expect(results).toMatchObject([
      { kind: 'finished', outcome: { kind: 'succeeded' }, heir: { kind: 'created', i: 2 } },
      { kind: 'finished', outcome: { kind: 'succeeded' }, heir: { kind: 'created', i: 3 } },
    ]);
    expect(h.emulator.ledger()).toMatchObject({ predictionsCreated: 4, duplicates: 0 });
  });

  it("restores the manifest line of an item recorded by a worker that died before appending it, on the next batch's first attempt", async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('batch-restore'));
    const request = await bothRequest(h, plan, activitiesFor(h));
    expect((await finishBatch(activitiesFor(h), request)).map((r) => r.kind)).toEqual([
      'finished',
      'finished',
    ]);
    // The worker that finished the second item died between its record and its line.
    // Its line goes, whichever of the two was appended first.
    const file = join(plan.outputDir, 'manifest.jsonl');
    const second = request.items[1]!.predictionId;
    const kept = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .filter((line) => ManifestEntry.parse(JSON.parse(line)).prediction_id !== second);
    expect(kept).toHaveLength(1);
    await writeFile(file, `${kept[0]}\n`);

    // The workflow's next batch for it: a new activity (attempt 1, not resumed) in another worker.
    const again = await finishBatch(activitiesFor(h), { ...request, items: [request.items[1]!] });
    expect(again).toMatchObject([{ kind: 'finished', outcome: { kind: 'succeeded' } }]);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(2);
  });
});

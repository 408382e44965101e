/**
 * The create activity on its own (MockActivityEnvironment) against the real emulator: the paths
 * where paying twice is possible — a request that may have reached the service, a service that
 * ignores idempotency keys, a batch refused as a whole — each create exactly one prediction per job.
 */
import { describe, expect, it } from 'vitest';
import { awaitPrediction } from '../../activities/await-prediction.ts';
import { createKey } from '../../activities/create/keys.ts';
import { createActivities } from '../../activities/index.ts';
import type { ServiceClient } from '../../api/client/index.ts';
import { parseUsd } from '../../api/money.ts';
import { readClaims } from '../../records/claims.ts';
import { readRefusals } from '../../records/refusals.ts';
import { openStore } from '../../store/index.ts';
import { activityDeps } from '../../worker/create-worker.ts';
import { activitiesFor, afterEachCreate, create, kinds, predictionIdOf } from './activity-env.ts';
import { harness } from './harness.ts';

const TWINS = `
version: 1
campaign: twins
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: 3
    input: { prompt: "The same picture, three variants" }
`;

describe('the create activity', () => {
  it('sends several ready jobs as one batch request', async () => {
    const h = await harness();
    const plan = await h.plan(TWINS);
    expect(kinds(await create(h, plan, 1, [0, 1, 2]))).toEqual(['created', 'created', 'created']);
    expect(h.emulator.ledger().requests['POST /v1/predictions/batch']).toEqual({ '200': 1 });
  });

  it('falls back to single creates when the service refuses the batch as a whole', async () => {
    // A burst of 2 creates: a batch of 3 can never be accepted.
    const h = await harness({ limits: { createsPerMinute: 120 } });
    const plan = await h.plan(TWINS);
    const outcomes = await create(h, plan, 1, [0, 1, 2]);
    // Two fit the burst; the third is rate limited and goes back to the workflow, uncreated.
    expect(kinds(outcomes)).toEqual(['created', 'created', 'retry']);
    const ledger = h.emulator.ledger();
    expect(ledger.requests['POST /v1/predictions/batch']).toEqual({ '400': 1 });
    expect(ledger.predictionsCreated).toBe(2);
  });

  it('adopts the prediction a lost reply created, even when the service ignores idempotency keys', async () => {
    const h = await harness({ ignoreIdempotency: true, faults: { dropConnectionRate: 1 } });
    const plan = await h.plan(TWINS);
    // Attempt 1: the service creates the prediction, then the connection drops before the reply.
    await expect(create(h, plan, 1, [0])).rejects.toThrow();
    expect(h.emulator.ledger().predictionsCreated).toBe(1);
    h.emulator.setFaults({ dropConnectionRate: 0 });
    // Attempt 2 finds it by model + input + time instead of creating another.
    const [outcome] = await create(h, plan, 2, [0]);
    expect(outcome).toMatchObject({ kind: 'created' });
    expect(h.emulator.ledger().predictionsCreated).toBe(1);
    expect((await readClaims(openStore(plan.outputDir), plan.campaign)).map((c) => c.key)).toEqual([
      plan.jobs[0]!.key,
    ]);
  });

  it('never adopts a prediction another job already claimed, even with identical input', async () => {
    const h = await harness({ ignoreIdempotency: true });
    const plan = await h.plan(TWINS);
    const [first] = await create(h, plan, 1, [0]);
    // Variant 2 has the same model and input; its retried attempt must not take variant 1's picture.
    const [second] = await create(h, plan, 2, [1]);
    expect(second).toMatchObject({ kind: 'created' });
    expect((second as { predictionId: string }).predictionId).not.toBe(
      (first as { predictionId: string }).predictionId,
    );
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
  });

  it("never adopts a twin's prediction while the twin's create is still claiming it", async () => {
    // Seen under load in an outage: 16 jobs counted succeeded, 15 predictions made, two jobs
    // sharing one. Twin 0's create has reached the service; its answer comes back only once
    // twin 1's retried create has searched and found that prediction (same model and input).
    const h = await harness();
    const plan = await h.plan(TWINS);
    let searched = () => {};
    const afterSearch = new Promise<void>((resolve) => {
      searched = resolve;
    });
    const slowAnswer = afterEachCreate(h, () => afterSearch);
    const watchedSearch: ServiceClient = {
      ...h.service,
      search: (query, options) =>
        (async function* () {
          yield* h.service.search(query, options);
          searched();
        })(),
    };
    const twin0 = create(h, plan, 1, [0], 0, createActivities(activityDeps(slowAnswer)));
    while (h.emulator.ledger().predictionsCreated === 0) await new Promise((r) => setTimeout(r, 10));
    const twin1 = create(h, plan, 2, [1], 0, createActivities(activityDeps(watchedSearch)));
    const [first, second] = [predictionIdOf((await twin0)[0]), predictionIdOf((await twin1)[0])];
    expect(second).not.toBe(first);
    expect(h.emulator.ledger()).toMatchObject({ predictionsCreated: 2, duplicates: 0 });
    const owners = (await readClaims(openStore(plan.outputDir), plan.campaign)).map((c) => c.prediction_id);
    expect(owners.sort()).toEqual([first, second].sort());
  });

  it('makes a job again when the service hands back, under its key, a prediction a twin adopted', async () => {
    // Twin 0's worker died between the service's answer and its claim ...
    const { h, plan, made } = await twinZeroUnclaimed();
    // ... so twin 1's retry, finding it unclaimed, adopts it (whose key made it is not shown).
    expect(predictionIdOf((await create(h, plan, 2, [1]))[0])).toBe(made.id);
    // Twin 0's retry sends its key again; the service hands back that same prediction.
    const again = predictionIdOf((await create(h, plan, 2, [0]))[0]);
    expect(again).not.toBe(made.id);
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
    const claims = await readClaims(openStore(plan.outputDir), plan.campaign);
    expect(new Set(claims.map((c) => c.prediction_id)).size).toBe(claims.length);
  });

  it('never lets a regeneration adopt the failed prediction it replaces', async () => {
    const h = await harness({ faults: { failRate: 1 } });
    const plan = await h.plan(TWINS);
    const [failed] = await create(h, plan, 1, [0]);
    // The regeneration's create is retried (attempt 2): the earlier prediction matches its model,
    // input and time, but it belongs to regeneration 0.
    const [replacement] = await create(h, plan, 2, [0], 1);
    expect(replacement).toMatchObject({ kind: 'created' });
    expect((replacement as { predictionId: string }).predictionId).not.toBe(
      (failed as { predictionId: string }).predictionId,
    );
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
  });

  it("retried, adopts the failed prediction its own first attempt made: the step's retries decide, nothing is paid again", async () => {
    const h = await harness({ faults: { failRate: 1 }, latencyMs: 0 });
    const plan = await h.plan(TWINS);
    // Attempt 1 created and claimed the prediction, then its worker died before reporting it.
    const first = predictionIdOf((await create(h, plan, 1, [0]))[0]);
    expect((await awaitPrediction(h.service, first)).status).toBe('failed');
    // Its retry hands the failed prediction to the workflow, which fails or regenerates the job.
    const [retried] = await create(h, plan, 2, [0]);
    expect(predictionIdOf(retried)).toBe(first);
    expect(h.emulator.ledger().predictionsCreated).toBe(1);
  });

  it('adopts the failed prediction another activity of the same run made: an heir created again after its batch was lost', async () => {
    const h = await harness({ faults: { failRate: 1 }, latencyMs: 0 });
    const plan = await h.plan(TWINS);
    const [made] = await create(h, plan, 1, [0], 0, activitiesFor(h), undefined, 'batch-7');
    const first = predictionIdOf(made);
    await awaitPrediction(h.service, first);
    const [again] = await create(h, plan, 1, [0], 0, activitiesFor(h), undefined, 'create-9');
    expect(predictionIdOf(again)).toBe(first);
    expect(h.emulator.ledger().predictionsCreated).toBe(1);
  });

  it('in a re-run, makes again the failed prediction an earlier run claimed', async () => {
    const h = await harness({ faults: { failRate: 1 }, latencyMs: 0 });
    const plan = await h.plan(TWINS);
    const first = predictionIdOf((await create(h, plan, 1, [0]))[0]);
    await awaitPrediction(h.service, first);
    const [again] = await create(h, plan, 1, [0], 0, activitiesFor(h), 'a-later-run');
    expect(predictionIdOf(again)).not.toBe(first);
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
  });

  it('in a re-run, records and counts once a flagged output no earlier run recorded', async () => {
    const h = await harness({ latencyMs: 0 });
    const plan = await h.plan(TWINS.replace('three variants"', 'three variants [flag]"'));
    // An earlier run made it; its output was flagged (and charged), and a full disk refused the
    // refusal record, stopping that run with the job kept.
    const first = predictionIdOf((await create(h, plan, 1, [0]))[0]);
    expect(await awaitPrediction(h.service, first)).toMatchObject({ status: 'failed' });
    const charged = h.emulator.ledger().creditsCharged;
    const [late] = await create(h, plan, 1, [0], 0, activitiesFor(h), 'a-later-run');
    expect(late).toMatchObject({ kind: 'rejected', failure: 'refused', creditsUsed: parseUsd(charged) });
    const recorded = [...(await readRefusals(plan.outputDir, plan.campaign)).values()].flat();
    expect(recorded).toMatchObject([{ prediction_id: first, stage: 'output', credits_used: charged }]);
    // Recorded, so counted: the run after that makes the take again, nothing reported twice.
    const [again] = await create(h, plan, 1, [0], 0, activitiesFor(h), 'a-third-run');
    expect(again).toMatchObject({ kind: 'created' });
    expect(predictionIdOf(again)).not.toBe(first);
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
  });

  it('reconciles a prediction whose prompt is longer than a search query may be', async () => {
    const h = await harness({ ignoreIdempotency: true, faults: { dropConnectionRate: 1 } });
    const longPrompt = `A very detailed brief. ${'Soft window light, oak table, linen. '.repeat(40)}`;
    const plan = await h.plan(
      TWINS.replace('"The same picture, three variants"', JSON.stringify(longPrompt)),
    );
    await expect(create(h, plan, 1, [0])).rejects.toThrow();
    h.emulator.setFaults({ dropConnectionRate: 0 });
    const [outcome] = await create(h, plan, 2, [0]);
    expect(outcome).toMatchObject({ kind: 'created' });
    expect(h.emulator.ledger().predictionsCreated).toBe(1);
  });
});

/** Twin 0's prediction as its create made it, under its key, with no claim written yet. */
async function twinZeroUnclaimed() {
  const h = await harness();
  const plan = await h.plan(TWINS);
  const twin0 = plan.jobs[0]!;
  const key = createKey({ campaign: plan.campaign, jobKey: twin0.key, regen: 0, replaces: null });
  const made = await h.service.predictions.create(twin0.model, { ...twin0.input }, { idempotencyKey: key });
  return { h, plan, made };
}

/**
 * What workers read from the shared folder is checked before it is used: the plan against its
 * digest and schema, a local input file against the hash planned, a recorded output against its
 * size (a lost file is made again, not counted as done).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storePlan } from '../../records/plan-store.ts';
import { LocalStore, writePlan } from '../../store/index.ts';
import { activitiesFor, create, createAndFinish, kinds, predictionIdOf } from './activity-env.ts';
import { harness, twoStills } from './harness.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('files workers trust', () => {
  it('refuses a plan changed after the campaign started', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('stills'));
    const ref = await storePlan(plan);
    const page = join(ref.file, 'pages', '0.json');
    const text = await readFile(page, 'utf8');
    await writeFile(page, text.replace('A lamp on an oak table', 'Something else entirely'));
    await expect(activitiesFor(h).loadJobs(ref, 0, 10)).rejects.toThrow(/does not match its digest/);
  });

  it('refuses a plan whose content is not a plan, even with a matching digest', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('stills'));
    // Written through the store, so every digest matches what it holds.
    const { jobs, ...head } = plan;
    const escaping = jobs.map((job, i) => (i === 0 ? { ...job, name: '../../../escaped' } : job));
    const digest = await writePlan(new LocalStore(plan.outputDir), head, escaping);
    const ref = {
      file: join(plan.outputDir, '.mediaflow', 'plans', digest, '/'),
      digest,
      jobCount: jobs.length,
    };
    await expect(activitiesFor(h).loadJobs(ref, 0, 10)).rejects.toThrow(/not a valid plan/);
  });

  it('hashes a local input again before uploading it and refuses one edited since planning', async () => {
    const h = await harness();
    const picture = join(h.dir, 'product.png');
    await writeFile(picture, Buffer.concat([PNG_SIGNATURE, Buffer.from('first version')]));
    const plan = await h.plan(`
version: 1
campaign: local
output: { dir: out }
steps:
  - id: clip
    model: V4
    input: { prompt: "Slow orbit", start_image: ./product.png, mode: standard }
`);
    await writeFile(picture, Buffer.concat([PNG_SIGNATURE, Buffer.from('edited after planning')]));
    const [outcome] = await create(h, plan, 1, [0]);
    expect(outcome).toMatchObject({ kind: 'rejected', code: 'LOCAL_FILE_CHANGED' });
    expect(h.emulator.ledger().predictionsCreated).toBe(0);
  });

  it('counts a recorded job as done only while its file is there with the recorded size', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('stills'));
    const activities = activitiesFor(h);
    const first = await createAndFinish(h, plan, 0, activities);
    expect(first.finished?.outcome.kind).toBe('succeeded');
    await createAndFinish(h, plan, 1, activities);
    expect(kinds(await create(h, plan, 1, [0, 1], 0, activities))).toEqual(['cached', 'cached']);

    const [lost] = await h.manifest(plan);
    await rm(join(plan.outputDir, String(lost!.file)));
    await writeFile(join(plan.outputDir, String((await h.manifest(plan))[1]!.file)), 'short');
    // Both are made again, as new predictions: the service must not hand back the lost one.
    const again = await create(h, plan, 1, [0, 1], 0, activities);
    expect(kinds(again)).toEqual(['created', 'created']);
    expect(predictionIdOf(again[0])).not.toBe(predictionIdOf(first.created));
    expect(h.emulator.ledger().predictionsCreated).toBe(4);
  });

  it('records a job made again after its file was lost, and counts it done from then on', async () => {
    const h = await harness();
    const plan = await h.plan(twoStills('stills'));
    const activities = activitiesFor(h);
    await createAndFinish(h, plan, 0, activities);
    const [recorded] = await h.manifest(plan);
    await rm(join(plan.outputDir, String(recorded!.file)));
    const remade = await createAndFinish(h, plan, 0, activities);
    expect(remade.finished?.outcome.kind).toBe('succeeded');
    const lines = await h.manifest(plan);
    expect(lines.map((line) => line.prediction_id)).toEqual([
      recorded!.prediction_id,
      predictionIdOf(remade.created),
    ]);
    expect(kinds(await create(h, plan, 1, [0], 0, activities))).toEqual(['cached']);
  });
});

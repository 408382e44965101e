/**
 * A re-run checks the files it is about to count as done: a missing one (or, with --verify, a
 * changed one) is fetched again from its prediction while the service serves it; otherwise the
 * job is priced in the preflight and made again.
 */
import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditOutputs } from '../../activities/audit.ts';
import { downloadFile } from '../../activities/download.ts';
import type { Download } from '../../activities/finish/save-output.ts';
import { readCredential } from '../../activities/provenance/credentials/read.ts';
import { preflight } from '../../cli/preflight.ts';
import type { Plan } from '../../plan/types.ts';
import { activitiesFor, createAndFinish } from './activity-env.ts';
import { type Harness, harness, twoStills } from './harness.ts';

const gone: Download = async () => {
  throw new Error('the service no longer serves this output');
};

async function finished(h: Harness): Promise<{ plan: Plan; files: string[] }> {
  const plan = await h.plan(twoStills('audit'));
  const activities = activitiesFor(h);
  for (const i of [0, 1]) await createAndFinish(h, plan, i, activities);
  const files = (await h.manifest(plan)).map((line) => join(plan.outputDir, String(line.file)));
  return { plan, files };
}

/**
 * A file fetched again is the one first delivered: the very bytes, or (signed again: C2PA salts
 * every assertion) as many bytes with a manifest that validates and names the same job.
 */
async function expectRefetched(file: string, original: Buffer, job: string): Promise<void> {
  const now = await readFile(file);
  expect(now.length).toBe(original.length);
  if (now.equals(original)) return;
  const credential = await readCredential(now, 'image/png');
  expect(credential).toMatchObject({ state: 'valid', generated: true, mediaflow: { job } });
}

describe('a re-run checks recorded files', () => {
  it('fetches a missing file again from its prediction, at no cost', async () => {
    const h = await harness();
    const { plan, files } = await finished(h);
    const original = await readFile(files[0]!);
    await rm(files[0]!);
    expect(await preflight(h.service, plan)).toMatchObject({ toRun: 1 });
    const audit = await auditOutputs(h.service, plan, { verify: false, download: downloadFile });
    expect(audit).toMatchObject({ refetched: [plan.jobs[0]!.name], lost: [] });
    await expectRefetched(files[0]!, original, plan.jobs[0]!.key);
    expect(await preflight(h.service, plan)).toMatchObject({ toRun: 0, cost: 0 });
  });

  it('prices a job whose file is lost for good as a new generation', async () => {
    const h = await harness();
    const { plan, files } = await finished(h);
    await rm(files[1]!);
    const audit = await auditOutputs(h.service, plan, { verify: false, download: gone });
    expect(audit).toMatchObject({ refetched: [], lost: [plan.jobs[1]!.name] });
    // Said with the reason the service's copy could not be had (run prints it beside the name).
    expect(audit.reasons[plan.jobs[1]!.name]).toMatch(/\S/);
    expect(await preflight(h.service, plan)).toMatchObject({ toRun: 1, cost: plan.jobs[1]!.usd });
  });

  it('with verify, treats a file whose sha256 changed like a missing one', async () => {
    const h = await harness();
    const { plan, files } = await finished(h);
    const original = await readFile(files[0]!);
    const tampered = Buffer.from(original);
    tampered[tampered.length - 1] = tampered.at(-1)! ^ 0xff;
    await writeFile(files[0]!, tampered);
    // Same size: only hashing notices.
    expect(await auditOutputs(h.service, plan, { verify: false, download: gone })).toEqual({
      refetched: [],
      lost: [],
      reasons: {},
    });
    expect(await auditOutputs(h.service, plan, { verify: true, download: downloadFile })).toMatchObject({
      refetched: [plan.jobs[0]!.name],
    });
    await expectRefetched(files[0]!, original, plan.jobs[0]!.key);

    await writeFile(files[1]!, tampered);
    expect(await auditOutputs(h.service, plan, { verify: true, download: gone })).toMatchObject({
      lost: [plan.jobs[1]!.name],
    });
    // Kept for the user, out of the way.
    await access(`${files[1]}.mismatch`);
    expect(await preflight(h.service, plan)).toMatchObject({ toRun: 1 });
  });
});

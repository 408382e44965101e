/**
 * The manifest made from the records (records/manifest-view.ts): exactly the current plan's
 * outputs listed as current, everything else marked superseded, edited-away outputs kept under
 * their own names, and a garbled manifest.jsonl never hiding a record.
 */
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Download, saveOutput } from '../../activities/finish/save-output.ts';
import type { Prediction } from '../../api/wire/index.ts';
import type { FinishRequest } from '../../contract/activities.ts';
import { planCampaign } from '../../plan/index.ts';
import type { Plan, PlannedJob } from '../../plan/types.ts';
import { writeCurrentPlan } from '../../records/current-plan.ts';
import { writeDecisions } from '../../records/decisions.ts';
import { readCheckedLines } from '../../records/jsonl.ts';
import { MANIFEST_FILE, Manifest, ManifestEntry } from '../../records/manifest.ts';
import { manifestLines, rebuildManifest } from '../../records/manifest-view.ts';
import { readPlan, storePlan } from '../../records/plan-store.ts';
import { setAsideEdited } from '../../records/set-aside.ts';

const SPEC = (prompt: string, colors: string) => `
version: 1
campaign: truth
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { color: [${colors}] }
    input: { prompt: "${prompt}" }
    review: { edit_prompt: true }
  - id: clip
    model: V4
    from: still
    input: { prompt: "slow pan", start_image: "{{from.output}}", duration: 5 }
`;

async function planOf(dir: string, prompt: string, colors: string): Promise<Plan> {
  await writeFile(join(dir, 'spec.yaml'), SPEC(prompt, colors));
  const result = await planCampaign(join(dir, 'spec.yaml'));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.plan;
}

/** `run` as far as the records go: the plan stored and named current. */
async function runPlan(plan: Plan, manifest: Manifest): Promise<void> {
  const ref = await storePlan(plan);
  await writeCurrentPlan(manifest.store, plan.campaign, ref.digest);
}

/** A job's output saved and recorded as finish/save-output.ts does: bytes on disk, their sha256. */
async function save(
  manifest: Manifest,
  job: PlannedJob,
  options: {
    take?: number;
    replaces?: string | null;
    at?: number;
    provenance?: ManifestEntry['provenance'];
  } = {},
): Promise<ManifestEntry> {
  const { take = 0, replaces = null, at = 1, provenance } = options;
  const bytes = `${job.key} take ${take}`;
  const file = `${job.step}/${job.name}${take > 0 ? `.take${take}` : ''}.png`;
  await mkdir(join(manifest.outputDir, job.step), { recursive: true });
  await writeFile(join(manifest.outputDir, file), bytes);
  const entry = ManifestEntry.parse({
    key: job.key,
    step: job.step,
    name: job.name,
    model: job.model,
    input: { ...job.input },
    prediction_id: `p-${job.key.slice(0, 6)}-${take}`,
    credits_used: '0.03',
    file,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: Buffer.byteLength(bytes),
    output_url: `https://cdn.example/${job.key}-${take}.png`,
    parent: null,
    ...(provenance ? { provenance } : {}),
    regenerations: take,
    created_at: '2026-11-27T09:00:00.000Z',
    finished_at: `2026-11-27T09:00:${String(at).padStart(2, '0')}.000Z`,
    wait_ms: 1,
    download_ms: 1,
  });
  expect(await manifest.record(entry, replaces)).toBe(true);
  return entry;
}

const sha256Of = async (dir: string, file: string) =>
  createHash('sha256')
    .update(await readFile(join(dir, file)))
    .digest('hex');

describe('the manifest made from the records', () => {
  it('lists exactly the current plan after an edit; the edited job’s earlier output is kept under its own name and marked superseded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-view-'));
    const before = await planOf(dir, 'A {{color}} mug', 'red, green');
    const manifest = await Manifest.open(before.outputDir);
    await runPlan(before, manifest);
    const stills = before.jobs.filter((job) => job.step === 'still');
    for (const [i, job] of stills.entries()) await save(manifest, job, { at: i + 1 });

    // The prompt edited: same names, new keys. One colour renamed: a new name too.
    const after = await planOf(dir, 'A {{color}} cup', 'crimson, green');
    await runPlan(after, manifest);
    const moved = await setAsideEdited(manifest.store, await manifest.takes(), after.jobs);
    const green = stills.find((job) => job.name === 'still-green')!;
    // Only green's file is one the new plan writes (still-crimson is a new name).
    expect(moved).toEqual([`still/still-green.${green.key.slice(0, 8)}.png`]);
    const newGreen = after.jobs.find((job) => job.name === 'still-green')!;
    await save(manifest, newGreen, { at: 10 });

    const lines = await manifestLines(manifest.store);
    const current = lines.filter((line) => !line.superseded);
    expect(current.map((line) => line.key)).toEqual([newGreen.key]);
    const superseded = lines.filter((line) => line.superseded);
    expect(superseded.map((line) => line.name).sort()).toEqual(['still-green', 'still-red']);
    // Every line's file holds the bytes its sha256 says: nothing was written over.
    for (const line of lines) expect(await sha256Of(before.outputDir, line.file)).toBe(line.sha256);
    expect(superseded.find((line) => line.name === 'still-green')).toMatchObject({
      file: moved[0],
      moved_from: 'still/still-green.png',
    });
  });

  it('marks earlier takes superseded and carries take, prompt sent, parent and who decided', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-view-'));
    const plan = await planOf(dir, 'A {{color}} mug', 'red');
    const manifest = await Manifest.open(plan.outputDir);
    await runPlan(plan, manifest);
    const [still, clip] = plan.jobs;
    const first = await save(manifest, still!, { at: 1 });
    const retake = await save(manifest, still!, { take: 1, replaces: first.prediction_id, at: 2 });
    await writeDecisions(plan.outputDir, plan.campaign, [
      {
        key: still!.key,
        take: 0,
        action: 'regenerate',
        by: 'ana',
        at: '2026-11-27T09:00:01.500Z',
        source: 'reviewer',
      },
      {
        key: still!.key,
        take: 1,
        action: 'approve',
        by: 'ben',
        at: '2026-11-27T09:00:03.000Z',
        source: 'reviewer',
      },
    ]);
    await save(manifest, clip!, { at: 4 });

    const lines = await manifestLines(manifest.store);
    expect(lines.map((line) => [line.take, line.superseded, line.review?.by])).toEqual([
      [0, true, 'ana'],
      [1, false, 'ben'],
      [0, false, undefined],
    ]);
    expect(lines[1]).toMatchObject({ file: retake.file, prompt: 'A red mug', review: { action: 'approve' } });
    // A record without its own `parent` still names it, from the plan and its provenance.
    expect(lines[2]!.parent).toMatchObject({ key: still!.key });
  });

  it('joins the decision into `review`, and keeps `provenance` as the file’s XMP holds it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-view-'));
    const plan = await planOf(dir, 'A {{color}} mug', 'red');
    const manifest = await Manifest.open(plan.outputDir);
    await runPlan(plan, manifest);
    const [still] = plan.jobs;
    // Sealed into the file when it was saved, before anyone could decide on it.
    const sealed = { campaign: plan.campaign, plan_digest: 'd'.repeat(64), parent_file: null, review: null };
    await save(manifest, still!, { provenance: sealed });
    const at = '2026-11-27T09:00:05.000Z';
    await writeDecisions(plan.outputDir, plan.campaign, [
      { key: still!.key, take: 0, action: 'reject', by: 'ana', at, source: 'reviewer' },
    ]);
    await rebuildManifest(plan.outputDir, manifest.store);
    const [line] = await manifestLines(manifest.store);
    expect(line!.review).toMatchObject({ action: 'reject', by: 'ana', at, take: 0 });
    expect(line!.provenance).toEqual(sealed);
    // What an audit re-fetch embeds again (its entry read back from the rewritten manifest.jsonl):
    // the XMP as first delivered, so the recorded sha256 still holds.
    expect((await (await Manifest.open(plan.outputDir)).get(still!.key))?.provenance).toEqual(sealed);
  });

  it('reads the records when manifest.jsonl has a garbled line or a torn tail, and run’s rebuild repairs the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-view-'));
    const plan = await planOf(dir, 'A {{color}} mug', 'red, green, blue');
    const manifest = await Manifest.open(plan.outputDir);
    await runPlan(plan, manifest);
    const stills = plan.jobs.filter((job) => job.step === 'still');
    for (const [i, job] of stills.entries()) await save(manifest, job, { at: i + 1 });
    const file = join(plan.outputDir, MANIFEST_FILE);
    const [one, two, three] = (await readFile(file, 'utf8')).trim().split('\n');
    await writeFile(file, `${one}\n${two!.slice(0, 40)}#garbled\n${three}\n`);
    await appendFile(file, three!.slice(0, 60));

    // A fresh reader (export, report, the review page) still sees every job.
    const reader = await Manifest.open(plan.outputDir);
    expect((await reader.recorded()).map((entry) => entry.name).sort()).toEqual(
      stills.map((job) => job.name).sort(),
    );
    expect((await rebuildManifest(plan.outputDir)).rewritten).toBe(true);
    const { values, damaged } = await readCheckedLines(file, ManifestEntry);
    expect(damaged).toBe(false);
    expect(values).toHaveLength(3);
    // A second rebuild finds nothing to do, and the worker's view of the replaced file is right.
    expect((await rebuildManifest(plan.outputDir)).rewritten).toBe(false);
    expect(await manifest.get(stills[1]!.key)).toMatchObject({ name: stills[1]!.name });
  });
});

describe('what a chained job’s record says', () => {
  it('names its parent job and file and records the input as sent, {{from.output}} expanded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-view-'));
    const plan = await planOf(dir, 'A {{color}} mug', 'red');
    const manifest = await Manifest.open(plan.outputDir);
    const ref = await storePlan(plan);
    const [still, clip] = plan.jobs;
    const parent = await save(manifest, still!);
    const { head } = await readPlan(ref);
    const download: Download = async (_url, target, options) => {
      const body = Buffer.from('a video');
      await target.store.put(target.key, body.toString());
      expect(options.transform).toBeDefined();
      return { sha256: createHash('sha256').update(body).digest('hex'), bytes: body.length };
    };
    const prediction = {
      id: 'p-clip',
      status: 'succeeded',
      rawStatus: 'succeeded',
      outputs: ['https://cdn.example/clip.mp4'],
      creditsUsed: 300_000,
      error: null,
    } as unknown as Prediction;
    const request: FinishRequest = {
      campaign: plan.campaign,
      plan: ref,
      outputDir: plan.outputDir,
      i: 1,
      regen: 0,
      predictionId: 'p-clip',
      startedAt: Date.now(),
      resumed: false,
      heir: null,
    };
    await saveOutput(download, manifest, clip!, prediction, request, {
      waitedMs: 1,
      replaces: null,
      head,
    });
    const recorded = await manifest.get(clip!.key);
    expect(clip!.input.start_image).toBe('{{from.output}}');
    expect(recorded?.input.start_image).toBe(parent.output_url);
    expect(recorded?.parent).toEqual({
      key: still!.key,
      prediction_id: parent.prediction_id,
      file: parent.file,
    });
  });
});

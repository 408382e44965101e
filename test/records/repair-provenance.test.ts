/**
 * A record repaired from its prediction (activities/repair-records.ts) keeps what its save
 * recorded: its parent and the provenance its file carries, read back from the plan, the decision
 * records and the file, so that when the file is lost later the audit fetches it again with the
 * same bytes, for free, instead of the job being made (and paid) again. A still (its XMP
 * embedded) made by an earlier plan than the current one, and the video made from it (its XMP in a
 * sidecar), each with its record emptied, then its file deleted.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { auditOutputs } from '../../activities/audit.ts';
import { type Download, saveOutput } from '../../activities/finish/save-output.ts';
import { repairRecords } from '../../activities/repair-records.ts';
import type { ServiceClient } from '../../api/client/index.ts';
import type { Prediction } from '../../api/wire/index.ts';
import { renderMp4 } from '../../emulator/media/outputs.ts';
import { renderPng } from '../../emulator/media/png.ts';
import type { Plan, PlannedJob } from '../../plan/types.ts';
import { addClaims } from '../../records/claims.ts';
import { writeCurrentPlan } from '../../records/current-plan.ts';
import { writeDecisions } from '../../records/decisions.ts';
import { Manifest } from '../../records/manifest.ts';
import { stillsAndClips } from '../helpers/review-fixtures.ts';

const REVIEW = { timeoutMs: null, onTimeout: 'reject', editPrompt: false } as const;
const EARLIER_PLAN = 'a'.repeat(64);
const CURRENT_PLAN = 'b'.repeat(64);

/** The service's output for each link: a PNG for the still, a short MP4 for the video. */
const grey = { width: 16, height: 16, rgb: new Uint8Array(16 * 16 * 3).fill(128) };
const outputs = new Map<string, Buffer>([
  ['https://cdn.example/still.png', renderPng('a shoe', 7, { width: 8, height: 8 })],
  ['https://cdn.example/clip.mp4', renderMp4(grey, 16, 1)],
]);

// Signed with the test fixtures' key whatever this machine has under .state/: a repaired record
// says its file is signed, so a lost one is fetched and signed again (test/fixtures/c2pa/).
const FIXTURES = fileURLToPath(new URL('../fixtures/c2pa/', import.meta.url));
beforeEach(() => {
  vi.stubEnv('MEDIAFLOW_C2PA_CERT', join(FIXTURES, 'es256.pem'));
  vi.stubEnv('MEDIAFLOW_C2PA_KEY', join(FIXTURES, 'es256.key'));
});

/** Streams the link's bytes through the save's transform into the store, as downloadFile does. */
const download: Download = async (url, target, options) => {
  const body = Readable.from([outputs.get(url)!]);
  const bytes = options.transform ? Readable.from(options.transform(body)) : body;
  return target.store.write(target.key, bytes);
};

const prediction = (id: string, url: string): Prediction => ({
  id,
  status: 'succeeded',
  rawStatus: 'succeeded',
  outputs: [url],
  creditsUsed: 120_000,
  createdAt: '2026-11-30T10:00:00.000Z',
});

const predictions = new Map([
  ['p-still', prediction('p-still', 'https://cdn.example/still.png')],
  ['p-clip', prediction('p-clip', 'https://cdn.example/clip.mp4')],
]);
const client = {
  predictions: { get: async (id: string) => predictions.get(id)! },
} as unknown as ServiceClient;

async function savedCampaign(): Promise<{ plan: Plan; still: PlannedJob; clip: PlannedJob }> {
  const base = stillsAndClips();
  const outputDir = await mkdtemp(join(tmpdir(), 'repair-provenance-'));
  const plan: Plan = {
    ...base,
    outputDir,
    steps: base.steps.map((step) => (step.id === 'still' ? { ...step, review: REVIEW } : step)),
  };
  const [still, clip] = [plan.jobs[0]!, plan.jobs[1]!];
  const manifest = await Manifest.open(outputDir);
  const save = (job: PlannedJob, id: string, digest: string) =>
    saveOutput(
      download,
      manifest,
      job,
      predictions.get(id)!,
      {
        campaign: plan.campaign,
        plan: { file: 'plan.json', digest, jobCount: plan.jobs.length },
        outputDir,
        i: plan.jobs.indexOf(job),
        regen: 0,
        predictionId: id,
        startedAt: Date.parse('2026-11-30T10:00:00.000Z'),
        resumed: false,
        heir: null,
      },
      { waitedMs: 0, replaces: null, head: plan },
    );
  await save(still, 'p-still', EARLIER_PLAN);
  await writeDecisions(outputDir, plan.campaign, [
    { key: still.key, action: 'approve', take: 0, at: '2026-11-30T10:05:00Z', source: 'reviewer', by: 'ana' },
  ]);
  await save(clip, 'p-clip', EARLIER_PLAN);
  // A later run (an edit elsewhere in the spec) named another plan current.
  await writeCurrentPlan(manifest.store, plan.campaign, CURRENT_PLAN);
  await addClaims(manifest.store, plan.campaign, [
    { prediction_id: 'p-still', key: still.key, regen: 0, idempotency_key: 'k-still' },
    { prediction_id: 'p-clip', key: clip.key, regen: 0, idempotency_key: 'k-clip' },
  ]);
  return { plan, still, clip };
}

const recordFile = (plan: Plan, job: PlannedJob) => join(plan.outputDir, '.mediaflow', 'records', job.key);

describe('a repaired record keeps what a lost file needs', () => {
  it('gets back its provenance, parent and signed state, so a file lost later is fetched again and signed again', async () => {
    const { plan, still, clip } = await savedCampaign();
    const original = new Map<string, unknown>();
    for (const job of [still, clip]) {
      original.set(job.key, JSON.parse(await readFile(recordFile(plan, job), 'utf8')));
      await writeFile(recordFile(plan, job), '');
    }
    // The user's manifest too, so nothing but the records tells a later run what was made.
    await rm(join(plan.outputDir, 'manifest.jsonl'));

    expect(await repairRecords(client, plan, download)).toEqual([clip.name, still.name].sort());
    for (const job of [still, clip]) {
      const { provenance, parent, sha256, xmp, xmp_sha256, c2pa } = original.get(job.key) as Record<
        string,
        unknown
      >;
      expect(c2pa).toBe(true);
      expect(JSON.parse(await readFile(recordFile(plan, job), 'utf8'))).toMatchObject({
        provenance,
        parent,
        sha256,
        c2pa,
        ...(xmp === undefined ? {} : { xmp, xmp_sha256 }),
      });
    }

    const files = [still, clip].map((job) => (original.get(job.key) as { file: string }).file);
    for (const file of files) await rm(join(plan.outputDir, file));
    const audit = await auditOutputs(client, plan, { verify: false, download });
    expect(audit).toMatchObject({ refetched: [clip.name, still.name].sort(), lost: [] });
  });

  it('a record whose file is gone too is saved with provenance, as any save is', async () => {
    const { plan, still } = await savedCampaign();
    const { file } = JSON.parse(await readFile(recordFile(plan, still), 'utf8')) as { file: string };
    await writeFile(recordFile(plan, still), '');
    await rm(join(plan.outputDir, 'manifest.jsonl'));
    await rm(join(plan.outputDir, file));
    await repairRecords(client, plan, download);
    const repaired = JSON.parse(await readFile(recordFile(plan, still), 'utf8'));
    expect(repaired.provenance).toMatchObject({ campaign: plan.campaign, plan_digest: CURRENT_PLAN });
    expect(repaired.c2pa).toBe(true);
    await rm(join(plan.outputDir, file));
    expect(await auditOutputs(client, plan, { verify: false, download })).toMatchObject({
      refetched: [still.name],
      lost: [],
    });
  });
});

/**
 * Two workers finishing one prediction (an attempt timed out while still running, and its retry)
 * each download and sign its output, and their bytes differ (a signature is salted). Whatever the
 * order, the file in place is the one its record names, by size and sha256; a writer killed between
 * its record and moving its file into place loses nothing: the next reader of the record, or the
 * sweep at the campaign's end, moves the staged bytes into place.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Download } from '../../activities/finish/save-output.ts';
import { saveOutput } from '../../activities/finish/save-output.ts';
import { settleStagedOutputs } from '../../activities/finish/sweep.ts';
import type { Prediction } from '../../api/wire/index.ts';
import type { FinishRequest } from '../../contract/activities.ts';
import { renderPng } from '../../emulator/media/png.ts';
import type { Plan, PlannedJob } from '../../plan/types.ts';
import { Manifest } from '../../records/manifest.ts';
import { fileIntact, recordedOutput } from '../../records/outputs.ts';
import { sha256Of } from '../../records/sha256.ts';
import { LocalStore, STAGED, type Store } from '../../store/index.ts';
import { stillsAndClips } from '../helpers/review-fixtures.ts';

const URL_OF_STILL = 'https://cdn.example/still.png';

const prediction: Prediction = {
  id: 'p-still',
  status: 'succeeded',
  rawStatus: 'succeeded',
  outputs: [URL_OF_STILL],
  creditsUsed: 40_000,
  createdAt: '2026-12-02T10:00:00.000Z',
};

/** A worker's download: the same picture, with bytes of its own (as its signature would make them). */
function downloadAs(worker: number): Download {
  return async (_url, target) =>
    target.store.write(
      target.key,
      Readable.from([renderPng(`a shoe, worker ${worker}`, 7, { width: 8, height: 8 })]),
    );
}

/** A store whose moves fail: a worker killed between its record and its move. */
function killedBeforeMove(store: Store): Store {
  const killing = Object.create(store) as Store;
  killing.move = async () => {
    throw new Error('killed');
  };
  return killing;
}

async function campaign(): Promise<{ plan: Plan; still: PlannedJob; outputDir: string }> {
  const base = stillsAndClips();
  const outputDir = await mkdtemp(join(tmpdir(), 'staged-outputs-'));
  return { plan: { ...base, outputDir }, still: base.jobs[0]!, outputDir };
}

function requestOf(plan: Plan, job: PlannedJob): FinishRequest {
  return {
    campaign: plan.campaign,
    plan: { file: 'plan.json', digest: 'a'.repeat(64), jobCount: plan.jobs.length },
    outputDir: plan.outputDir,
    i: plan.jobs.indexOf(job),
    regen: 0,
    predictionId: prediction.id,
    startedAt: Date.parse('2026-12-02T10:00:00.000Z'),
    resumed: false,
    heir: null,
  };
}

const context = (plan: Plan) => ({ waitedMs: 0, replaces: null, head: plan });

/** A campaign whose first writer of the still was killed after recording it, before its move; and a new reader. */
async function killedAfterRecording() {
  const { plan, still, outputDir } = await campaign();
  const killed = await Manifest.open(outputDir);
  Object.defineProperty(killed, 'store', { value: killedBeforeMove(new LocalStore(outputDir)) });
  await expect(
    saveOutput(downloadAs(1), killed, still, prediction, requestOf(plan, still), context(plan)),
  ).rejects.toThrow('killed');
  return { plan, still, outputDir, manifest: await Manifest.open(outputDir) };
}

async function inPlaceAsRecorded(manifest: Manifest, job: PlannedJob): Promise<boolean> {
  const entry = await manifest.get(job.key);
  if (!entry) return false;
  return (await sha256Of(manifest.store, entry.file)) === entry.sha256;
}

async function stagedLeft(outputDir: string): Promise<string[]> {
  return readdir(join(outputDir, STAGED), { recursive: true }).catch(() => []);
}

describe('two workers saving one prediction', () => {
  it('leaves the bytes of the record in place when the second finishes after the first', async () => {
    const { plan, still, outputDir } = await campaign();
    const manifest = await Manifest.open(outputDir);
    await saveOutput(downloadAs(1), manifest, still, prediction, requestOf(plan, still), context(plan));
    await saveOutput(downloadAs(2), manifest, still, prediction, requestOf(plan, still), context(plan));
    expect(await inPlaceAsRecorded(manifest, still)).toBe(true);
    expect((await manifest.recorded()).length).toBe(1);
    expect(await stagedLeft(outputDir)).toEqual([]);
  });

  it('leaves the bytes of the record in place when both save at once', async () => {
    const { plan, still, outputDir } = await campaign();
    const manifest = await Manifest.open(outputDir);
    await Promise.all(
      [1, 2, 3].map((worker) =>
        saveOutput(downloadAs(worker), manifest, still, prediction, requestOf(plan, still), context(plan)),
      ),
    );
    expect(await inPlaceAsRecorded(manifest, still)).toBe(true);
    expect(await stagedLeft(outputDir)).toEqual([]);
  });
});

describe('a recorded output whose file was deleted', () => {
  it('is put back by the next save of the same prediction, its record standing', async () => {
    const { plan, still, outputDir } = await campaign();
    const manifest = await Manifest.open(outputDir);
    await saveOutput(downloadAs(1), manifest, still, prediction, requestOf(plan, still), context(plan));
    const entry = (await manifest.get(still.key))!;
    await rm(join(outputDir, entry.file));
    await saveOutput(downloadAs(1), manifest, still, prediction, requestOf(plan, still), context(plan));
    expect(await inPlaceAsRecorded(manifest, still)).toBe(true);
    expect(await stagedLeft(outputDir)).toEqual([]);
  });
});

describe('a worker killed between its record and its move', () => {
  it('has its staged bytes moved into place by the next reader of the record, which finds the job done', async () => {
    const { still, manifest } = await killedAfterRecording();
    const entry = (await manifest.get(still.key))!;
    expect(await fileIntact(manifest.store, entry)).toBe(false);
    // The next attempt, or the next run's preflight, reads the record: done, not lost (and paid again).
    expect((await recordedOutput(manifest, still.key)).state).toBe('done');
    expect(await inPlaceAsRecorded(manifest, still)).toBe(true);
  });

  it('has them placed by a second worker that lost the record to it', async () => {
    const { plan, still, manifest } = await killedAfterRecording();
    await saveOutput(downloadAs(2), manifest, still, prediction, requestOf(plan, still), context(plan));
    expect(await inPlaceAsRecorded(manifest, still)).toBe(true);
  });

  it('has them placed by the sweep at the campaign end, which then leaves nothing staged', async () => {
    const { plan, still, outputDir, manifest } = await killedAfterRecording();
    const removed = await settleStagedOutputs(manifest, plan.jobs);
    expect(removed).toEqual([]);
    expect(await inPlaceAsRecorded(manifest, still)).toBe(true);
    expect(await stagedLeft(outputDir)).toEqual([]);
  });
});

/**
 * The channels of the catalogue example (specs/catalogue.yaml): each derive step a sheet laid out
 * as its parent step's (a line per product, a column per aspect ratio), each card what the
 * derivative's record says of it: made with its size and format, failed with why, or not made
 * yet, including when its record was made from an earlier take of the parent or names a file the
 * plan does not.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../contract/review.ts';
import { planCampaign } from '../../plan/index.ts';
import type { PlannedDerivative, PlannedJob } from '../../plan/types.ts';
import type { DerivativeRecord } from '../../records/derivatives.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
import { inboxRow } from '../../review/inbox.ts';
import { buildModel } from '../../review/model.ts';
import { defaultLayout, sheetOf } from '../../review/sheet.ts';
import { saved } from '../helpers/review-fixtures.ts';

const catalogue = path.resolve(import.meta.dirname, '../../specs/catalogue.yaml');
const result = await planCampaign(catalogue);
if (!result.ok) throw new Error(result.problems.map((problem) => problem.message).join('\n'));
const plan = result.plan;

const stills = plan.jobs.filter((job) => job.step === 'still');
const [tee11, tee916, cap11, cap916] = stills as [PlannedJob, PlannedJob, PlannedJob, PlannedJob];
const feedOf = (job: PlannedJob): PlannedDerivative => job.derivatives!.find((d) => d.step === 'feed')!;
/** Saved as the finish saves it: under the step's folder, by the spec's output name. */
const savedAs = (job: PlannedJob, take = 0): ManifestEntry => ({
  ...saved(job, take),
  file: `still/${job.file}${take > 0 ? `.take${take}` : ''}.png`,
});
const entries = new Map<string, ManifestEntry>(
  [tee11, tee916, cap11, cap916].map((job) => [job.key, savedAs(job)]),
);

function record(job: PlannedJob, fields: Partial<DerivativeRecord> = {}): DerivativeRecord {
  const derivative = feedOf(job);
  return {
    key: derivative.key,
    step: 'feed',
    parent: { key: job.key, prediction_id: 'p', file: entries.get(job.key)!.file, sha256: '0'.repeat(64) },
    operations: ['resize 1080×1080 cover', 'format jpeg q85'],
    tools: 'sharp 0.34',
    at: '2026-12-01T00:00:00Z',
    state: 'made',
    file: `feed/${derivative.file}.jpg`,
    sha256: '1'.repeat(64),
    bytes: 212_345,
    format: 'jpg',
    width: 1080,
    height: 1080,
    duration_s: null,
    ...fields,
  } as DerivativeRecord;
}

const records = [
  record(tee11),
  record(tee916, { state: 'failed', message: 'derive_failed: operation 4 (format): over 500000 bytes' }),
  // Made from take 0; the manifest's latest is take 1: its file is made again.
  record(cap11, {
    parent: { key: cap11.key, prediction_id: 'p', file: 'still/CAP-02/1-1.png', sha256: '0'.repeat(64) },
  }),
  // A hand-edited record naming another file: not shown, not served.
  record(cap916, { file: 'report.html' }),
];
entries.set(cap11.key, savedAs(cap11, 1));
const model = buildModel({
  plan,
  reviewedSteps: new Set(),
  entries,
  decisions: new Map(),
  progress: null,
  derivatives: new Map(records.map((r) => [r.key, r])),
});
const channel = (id: string) => model.channels.find((c) => c.id === id)!;

describe("a campaign's channels", () => {
  it('are one sheet per derive step, laid out and ordered as its parent step', () => {
    expect(model.channels.map((c) => [c.id, c.from, c.items.length])).toEqual([
      ['feed', 'still', 20],
      ['story', 'still', 20],
      ['reel', 'clip', 20],
      ['poster', 'clip', 20],
    ]);
    for (const c of model.channels) {
      const parent = model.steps.find((step) => step.id === c.from)!;
      expect(c.axes).toEqual(parent.axes);
      expect(c.items.map((card) => card.parent)).toEqual(parent.items.map((item) => item.key));
      expect(sheetOf(c, defaultLayout(c)).rowLabels).toEqual(
        sheetOf(parent, defaultLayout(parent)).rowLabels,
      );
      expect(sheetOf(c, defaultLayout(c)).colLabels).toEqual(['1:1', '9:16']);
    }
    expect(channel('reel').items.every((card) => card.kind === 'video')).toBe(true);
  });

  it("say what each derivative's record says: made, failed with why, or not made yet", () => {
    const [made, failed, stale, edited, none] = channel('feed').items;
    expect(made).toMatchObject({
      state: 'made',
      file: 'feed/TEE-01/1-1.jpg',
      width: 1080,
      height: 1080,
      bytes: 212_345,
      format: 'jpg',
      kind: 'image',
      parentFile: 'still/TEE-01/1-1.png',
    });
    expect(failed).toMatchObject({
      state: 'failed',
      file: 'feed/TEE-01/9-16',
      reason: 'derive_failed: operation 4 (format): over 500000 bytes',
    });
    expect(stale).toMatchObject({ state: 'unmade', file: 'feed/CAP-02/1-1', bytes: null });
    expect(edited).toMatchObject({ state: 'unmade', file: 'feed/CAP-02/9-16' });
    // No record: its planned operations, in words, and the format they ask for.
    expect(none).toMatchObject({ state: 'unmade', format: 'jpeg', parentFile: null });
    expect(none!.operations[0]).toBe('resize 1080×1080 cover');
    const none0 = { awaiting: 0, approved: 0, rejected: 0 };
    expect(channel('feed').counts).toEqual({ made: 1, failed: 1, unmade: 18, ...none0 });
    expect(channel('story').counts).toEqual({ made: 0, failed: 0, unmade: 20, ...none0 });
  });

  it("of a reviewed derive step: a made file awaits a decision on its parent's saved take, then says it", () => {
    const rule = { timeoutMs: null, onTimeout: 'reject', editPrompt: false } as const;
    const reviewed = {
      ...plan,
      deriveSteps: plan.deriveSteps!.map((step) => (step.id === 'feed' ? { ...step, review: rule } : step)),
    };
    const made = [tee11, tee916].map((job) => record(job));
    const feed = (decisions: DecisionRecord[], parentTake = 0) => {
      const taken = new Map(entries);
      taken.set(tee11.key, savedAs(tee11, parentTake));
      const at = (job: PlannedJob) => ({
        ...record(job),
        parent: { ...record(job).parent, file: taken.get(job.key)!.file },
      });
      return buildModel({
        plan: reviewed,
        reviewedSteps: new Set(),
        entries: taken,
        decisions: new Map(decisions.map((d) => [d.key, d])),
        progress: null,
        derivatives: new Map([at(tee11), made[1]!].map((r) => [r.key, r])),
      }).channels.find((c) => c.id === 'feed')!;
    };
    const on = (job: PlannedJob, action: 'approve' | 'reject', take = 0): DecisionRecord => ({
      key: feedOf(job).key,
      action,
      take,
      at: '2026-12-03T00:00:00Z',
      source: 'reviewer',
    });
    const states = (c: ReturnType<typeof feed>) => c.items.slice(0, 2).map((card) => card.state);
    expect(feed([]).reviewed).toBe(true);
    expect(channel('feed').reviewed).toBe(false);
    expect(states(feed([]))).toEqual(['awaiting', 'awaiting']);
    expect(states(feed([on(tee11, 'approve'), on(tee916, 'reject')]))).toEqual(['approved', 'rejected']);
    // A decision on an earlier take of the parent: the file was made again from the new one, and asks again.
    expect(states(feed([on(tee11, 'approve', 0)], 1))).toEqual(['awaiting', 'awaiting']);
    expect(states(feed([on(tee11, 'approve', 1)], 1))).toEqual(['approved', 'awaiting']);
    expect(feed([on(tee11, 'approve')]).counts).toMatchObject({
      approved: 1,
      awaiting: 1,
      made: 0,
      unmade: 18,
    });
    // The inbox counts the files waiting as their step's, since their parent's save.
    const model = buildModel({
      plan: reviewed,
      reviewedSteps: new Set(),
      entries,
      decisions: new Map([[feedOf(tee11).key, on(tee11, 'approve')]]),
      progress: null,
      derivatives: new Map(made.map((r) => [r.key, r])),
    });
    const since = new Map([[tee916.key, { finished_at: '2026-12-03T08:00:00Z' }]]);
    expect(inboxRow(model, since)).toEqual({
      campaign: plan.campaign,
      awaiting: 1,
      steps: [{ id: 'feed', awaiting: 1 }],
      oldestSince: '2026-12-03T08:00:00Z',
    });
  });

  it("name each job's card by its deliverable's file, saved or not", () => {
    const [still] = model.steps;
    expect(still!.items[0]!.fileName).toBe('still/TEE-01/1-1.png');
    expect(still!.items[4]!.fileName).toBe('still/SNK-03/1-1');
  });
});

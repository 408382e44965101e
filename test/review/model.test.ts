import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../contract/review.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
import { type ItemState, type JobFacts, stateOf } from '../../review/job-state.ts';
import { matchJobs } from '../../review/match-jobs.ts';
import { buildModel } from '../../review/model.ts';
import { defaultLayout, fitLayout, sheetOf } from '../../review/sheet.ts';
import { decided, latest, running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const plan = stillsAndClips();
const [still] = plan.jobs;
const entry = (take: number): ManifestEntry => saved(still!, take);
const decision = (action: DecisionRecord['action'], take: number) => decided(still!, action, take);
const base: JobFacts = {
  reviewed: true,
  entry: undefined,
  decision: undefined,
  parent: null,
  failed: false,
  campaign: 'running',
};

describe('the state of a job', () => {
  const table: [string, Partial<JobFacts>, ItemState][] = [
    ['not saved yet', {}, 'generating'],
    ['saved, reviewed step, no decision', { entry: entry(0) }, 'awaiting'],
    ['saved, step without review', { reviewed: false, entry: entry(0) }, 'done'],
    ['approved', { entry: entry(0), decision: decision('approve', 0) }, 'approved'],
    ['rejected', { entry: entry(0), decision: decision('reject', 0) }, 'rejected'],
    [
      'regeneration asked, new take not saved',
      { entry: entry(0), decision: decision('regenerate', 0) },
      'regenerating',
    ],
    [
      'regeneration saved: awaits review again',
      { entry: entry(1), decision: decision('regenerate', 0) },
      'awaiting',
    ],
    ['second take approved', { entry: entry(1), decision: decision('approve', 1) }, 'approved'],
    ['failed, says the campaign', { failed: true }, 'failed'],
    ['never saved, campaign over', { campaign: 'ended' }, 'failed'],
    ['never saved, campaign unknown to Temporal', { campaign: 'unknown' }, 'unrun'],
    [
      'regeneration asked, campaign over before it landed',
      { entry: entry(0), decision: decision('regenerate', 0), campaign: 'ended' },
      'awaiting',
    ],
    ['parent rejected', { reviewed: false, parent: 'rejected' }, 'skipped'],
    ['parent failed', { reviewed: false, parent: 'failed' }, 'skipped'],
    ['grandparent rejected (parent skipped)', { reviewed: false, parent: 'skipped' }, 'skipped'],
    ['parent awaiting review: not made yet', { reviewed: false, parent: 'awaiting' }, 'waiting'],
    ['parent being made', { reviewed: false, parent: 'generating' }, 'waiting'],
    ['parent approved, video being made', { reviewed: false, parent: 'approved' }, 'generating'],
    ['parent approved, video saved', { reviewed: false, parent: 'approved', entry: entry(0) }, 'done'],
  ];
  it.each(table)('%s', (_, facts, state) => {
    expect(stateOf({ ...base, ...facts })).toBe(state);
  });
});

describe('the campaign model', () => {
  const [s1, c1, s2, c2, s3, c3, s4] = plan.jobs;
  const model = buildModel({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map([s1!, c1!, s2!, s3!].map((j) => [j.key, saved(j)])),
    decisions: latest([decided(s1!, 'approve'), decided(s2!, 'approve'), decided(s3!, 'reject')]),
    progress: running(plan, 3_300_000),
  });
  const [stills, clips] = model.steps;

  it('shows each still with its state and its video', () => {
    expect(stills!.items.map((item) => [item.name, item.state])).toEqual([
      ['still-shoe-white', 'approved'],
      ['still-shoe-marble', 'approved'],
      ['still-bag-white', 'rejected'],
      ['still-bag-marble', 'generating'],
    ]);
    expect(stills!.items[0]!.descendants).toEqual([
      {
        key: c1!.key,
        name: c1!.name,
        step: 'clip',
        state: 'done',
        file: 'clip/clip-shoe-white.mp4',
        fileName: 'clip/clip-shoe-white.mp4',
        kind: 'video',
        poster: 'still/still-shoe-white.png',
      },
    ]);
    expect(stills!.items[2]!.descendants[0]!.state).toBe('skipped');
    expect(clips!.items.map((item) => item.state)).toEqual(['done', 'generating', 'skipped', 'waiting']);
    expect(stills!.axes).toEqual(['product', 'background']);
    expect(stills!.items[0]!.prompt).toBe('prompt 1');
    expect(s4!.key).toBe(stills!.items[3]!.key);
    expect(c2 && c3).toBeTruthy();
  });

  it('counts money: spent, committed by approvals, worst case left', () => {
    // Approved s2's clip ($1) is committed; left in the worst case: that clip, s4 and its clip.
    expect(model.totals).toEqual({
      spent: 3_300_000,
      superseded: 0,
      committedByApprovals: 1_000_000,
      worstCaseLeft: 2_100_000,
      budget: 10_000_000,
    });
    expect(stills!.plannedUsd).toBe(400_000);
    expect(stills!.spentUsd).toBe(300_000);
    expect(clips!.spentUsd).toBe(1_000_000);
  });

  it('a step spent what the run paid for it, retakes included: the steps add up to the total', () => {
    // Each still's manifest line is its latest take ($0.10); the run paid two retakes more ($0.20).
    const counts = { cached: 0, failed: 0, skipped: 0, canceled: 0, created: 0, regenerated: 0 };
    const step = (id: string, model: 'I1' | 'V4', spent: number) =>
      ({ id, model, planned: 4, running: 0, waiting: 0, succeeded: 3, ...counts, spent }) as const;
    const progress = {
      ...running(plan, 1_500_000),
      steps: [step('still', 'I1', 500_000), step('clip', 'V4', 1_000_000)],
    };
    const paid = buildModel({
      plan,
      reviewedSteps: new Set(['still']),
      entries: new Map([s1!, c1!, s2!, s3!].map((j) => [j.key, saved(j)])),
      decisions: latest([]),
      progress,
    });
    expect(paid.steps.map((s) => s.spentUsd)).toEqual([500_000, 1_000_000]);
    expect(paid.totals.spent).toBe(paid.steps.reduce((sum, s) => sum + s.spentUsd, 0));
  });

  it('changes an item’s version when its video lands, not otherwise', () => {
    const again = buildModel({
      plan,
      reviewedSteps: new Set(['still']),
      entries: new Map([s1!, c1!, s2!, c2!, s3!].map((j) => [j.key, saved(j)])),
      decisions: latest([decided(s1!, 'approve'), decided(s2!, 'approve'), decided(s3!, 'reject')]),
      progress: running(plan),
    });
    const versions = (m: typeof model) => m.steps[0]!.items.map((item) => item.version);
    expect(versions(again).map((v, i) => v === versions(model)[i])).toEqual([true, false, true, true]);
  });
});

describe('a contact sheet', () => {
  const model = buildModel({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map(),
    decisions: new Map(),
    progress: null,
  });
  const stills = model.steps[0]!;

  it('puts the first axis in rows and the second in columns by default', () => {
    const sheet = sheetOf(stills, defaultLayout(stills));
    expect(sheet.rowLabels).toEqual(['shoe', 'bag']);
    expect(sheet.colLabels).toEqual(['white', 'marble']);
    expect(sheet.cells[1]![0]!.map((item) => item.name)).toEqual(['still-bag-white']);
  });

  it('lays out the axes the user chose, dropping ones the step lacks or repeats', () => {
    const layout = fitLayout(stills, { rows: ['background', 'mode'], cols: ['background'] });
    expect(layout).toEqual({ rows: ['background'], cols: [] });
    const sheet = sheetOf(stills, layout);
    expect(sheet.rowLabels).toEqual(['white', 'marble']);
    expect(sheet.cells[0]![0]!.map((item) => item.name)).toEqual(['still-shoe-white', 'still-bag-white']);
  });

  it('lays variants out as job names say them', () => {
    const takes = {
      ...plan,
      jobs: plan.jobs.map((job, n) => ({ ...job, variant: (Math.floor(n / 2) % 2) + 1 })),
    };
    const step = buildModel({
      plan: takes,
      reviewedSteps: new Set(),
      entries: new Map(),
      decisions: new Map(),
      progress: null,
    }).steps[0]!;
    expect(step.axes).toEqual(['product', 'background', 'variant']);
    expect(sheetOf(step, { rows: ['variant'], cols: [] }).rowLabels).toEqual(['v1', 'v2']);
  });

  it('a campaign Temporal never ran reads as not run', () => {
    expect(model.outcome).toBe('unknown');
    expect(stills.counts.unrun).toBe(4);
  });
});

describe('jobs named on a command line', () => {
  const items = buildModel({
    plan,
    reviewedSteps: new Set(),
    entries: new Map(),
    decisions: new Map(),
    progress: null,
  }).steps[0]!.items;
  it.each([
    [['still-shoe-white'], ['still-shoe-white'], []],
    [['still-*-white'], ['still-shoe-white', 'still-bag-white'], []],
    [['still-ba?-*', 'still-bag-white'], ['still-bag-white', 'still-bag-marble'], []],
    [[plan.jobs[0]!.key], ['still-shoe-white'], []],
    [['still-shoe', 'still.shoe.white'], [], ['still-shoe', 'still.shoe.white']],
  ])('%j', (patterns, names, unmatched) => {
    const matched = matchJobs(items, patterns);
    expect(matched.items.map((item) => item.name)).toEqual(names);
    expect(matched.unmatched).toEqual(unmatched);
  });
});

/**
 * What `estimate`, `plan` and `run`'s first line say is left to run (cli/left-to-run.ts), read from
 * a campaign's records in a folder: a clip whose still's recorded take was rejected (and the still
 * is unchanged, so the decision stands) will not run, so it is counted as skipped, not priced; an
 * approved or undecided still's clip is still to run, and a clip of an edited still is too (the
 * new still is reviewed afresh).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDollars } from '../../api/money.ts';
import { leftToRun } from '../../cli/left-to-run.ts';
import { recordsJson, recordsLines } from '../../cli/records-lines.ts';
import type { ReviewAction } from '../../contract/review.ts';
import { reviewCosts } from '../../plan/review-costs.ts';
import type { Plan } from '../../plan/types.ts';
import { writeDecisions } from '../../records/decisions.ts';
import { Manifest } from '../../records/manifest.ts';
import { openStore } from '../../store/index.ts';
import { saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const REVIEW = { timeoutMs: null, onTimeout: 'reject', editPrompt: false } as const;

/** The four stills recorded (with their files), none of the clips; each still's decision as given. */
async function campaignWith(decisions: (ReviewAction | null)[]): Promise<Plan> {
  const base = stillsAndClips();
  const outputDir = await mkdtemp(join(tmpdir(), 'left-to-run-'));
  const plan: Plan = {
    ...base,
    outputDir,
    steps: base.steps.map((step) => (step.id === 'still' ? { ...step, review: REVIEW } : step)),
  };
  const manifest = await Manifest.open(outputDir);
  const stills = plan.jobs.filter((job) => job.step === 'still');
  await mkdir(join(outputDir, 'still'), { recursive: true });
  for (const still of stills) {
    const entry = saved(still);
    await writeFile(join(outputDir, entry.file), 'x'.repeat(entry.bytes));
    await manifest.record(entry, null);
  }
  const records = stills.flatMap((still, i) => {
    const action = decisions[i];
    return action
      ? [{ key: still.key, action, take: 0, at: '2026-11-27T09:00:00Z', source: 'reviewer' as const }]
      : [];
  });
  if (records.length > 0) await writeDecisions(outputDir, plan.campaign, records);
  return plan;
}

describe('jobs left to run after review decisions', () => {
  it.each([
    ['every still approved: the four clips run', ['approve', 'approve', 'approve', 'approve'], 4, 0],
    [
      'one still rejected: its clip is skipped, not priced',
      ['approve', 'approve', 'reject', 'approve'],
      3,
      1,
    ],
    [
      'a still undecided: its clip waits for the decision, still to run',
      [null, 'approve', 'reject', 'reject'],
      2,
      2,
    ],
    ['a still being retaken: its clip may run', ['regenerate', 'reject', 'approve', 'approve'], 3, 1],
  ] as const)('%s', async (_, decisions, toRun, skipped) => {
    const plan = await campaignWith([...decisions]);
    const left = await leftToRun(plan, openStore(plan.outputDir));
    expect(left.recorded).toBe(4);
    expect(left.toRun.map(({ job }) => job.step)).toEqual(Array(toRun).fill('clip'));
    expect(left.skipped.map(({ job }) => job.name)).toEqual(
      plan.jobs
        .filter((job, i) => job.step === 'clip' && decisions[(i - 1) / 2] === 'reject')
        .map((job) => job.name),
    );
    expect(left.skipped).toHaveLength(skipped);
  });

  it('names the skipped clip and prices only the clips that will run', async () => {
    const plan = await campaignWith(['approve', 'approve', 'reject', 'approve']);
    const left = await leftToRun(plan, openStore(plan.outputDir));
    const cost = left.toRun.reduce((sum, { job }) => sum + (job.usd ?? 0), 0);
    expect(recordsLines(left, plan.jobs.length, plan.outputDir, formatDollars(cost))[0]).toContain(
      ': 4 of 8 jobs recorded with their files (free); 3 to run, $3.00: 3 new; 1 skipped: its still was rejected',
    );
    expect(recordsJson(left, cost)).toMatchObject({
      recorded_jobs: 4,
      to_run: { jobs: 3, usd: '3.00' },
      skipped_jobs: 1,
    });
    // Nothing of the rejected still's clip is money before (or after) any approval.
    expect(
      reviewCosts(
        left.toRun.map(({ job }) => job),
        plan.steps,
        (job) => job.usd ?? 0,
      ),
    ).toMatchObject({
      worstCaseUsd: 3_000_000,
    });
  });

  it('holds back the clip of a recorded still still awaiting its decision: not money before any approval', async () => {
    const plan = await campaignWith([null, 'approve', 'reject', 'regenerate']);
    const left = await leftToRun(plan, openStore(plan.outputDir));
    const jobs = left.toRun.map(({ job }) => job);
    expect(jobs.map((job) => job.name)).toEqual(['clip-shoe-white', 'clip-shoe-marble', 'clip-bag-marble']);
    // Only the approved still's clip is paid whatever a reviewer decides next.
    expect(reviewCosts(jobs, plan.steps, (job) => job.usd ?? 0, left.awaitingDecision)).toEqual({
      reviewedUsd: 0,
      beforeApprovalsUsd: 1_000_000,
      worstCaseUsd: 3_000_000,
    });
  });

  it('an edited still is made and reviewed afresh: its clip is to run, whatever the old still’s decision', async () => {
    const plan = await campaignWith(['approve', 'approve', 'reject', 'approve']);
    const [s1, c1, s2, c2, s3, c3, ...rest] = plan.jobs;
    const edited: Plan = {
      ...plan,
      jobs: [
        s1!,
        c1!,
        s2!,
        c2!,
        { ...s3!, key: 'e'.repeat(32) },
        { ...c3!, parent: 'e'.repeat(32) },
        ...rest,
      ],
    };
    const left = await leftToRun(edited, openStore(plan.outputDir));
    expect(left.skipped).toEqual([]);
    expect(left.toRun.map(({ job }) => job.name)).toContain('clip-bag-white');
  });
});

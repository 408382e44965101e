/**
 * The money and the take numbers report.html and the review page show, from the read model
 * (review/model.ts) and its renderer (review/render.ts), after a reviewed chained campaign with a
 * retake, a reject and an edit that removed a job: the headline is what was paid in all runs (the
 * one rule `status` uses, records/manifest.ts `paidInAllRuns`), the steps and the money paid for
 * jobs the edit removed add up to it, a retaken still shows what all its takes cost, a skipped
 * clip costs nothing, and a take has one number everywhere (the file's `.take1`).
 */
import { describe, expect, it } from 'vitest';
import { spentLine } from '../../cli/commands/report.ts';
import { paidByJob, paidInAllRuns } from '../../records/paid.ts';
import { costLine } from '../../review/cost-line.ts';
import { buildModel } from '../../review/model.ts';
import { renderItem, renderTotals } from '../../review/render.ts';
import { decided, key, latest, running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const plan = stillsAndClips();
const [s1, c1, s2, c2, s3, c3, s4, c4] = plan.jobs;
/** s1 was retaken once: its first take and its second, each $0.10. */
const retaken = { ...saved(s1!, 1), file: 'still/still-shoe-white.take1.png' };
const takes = [
  saved(s1!, 0),
  retaken,
  ...[c1!, s2!, c2!, s3!, s4!, c4!].map((job) => saved(job)),
  // A clip of a colour the edit renamed: paid in an earlier run, no longer in the plan.
  { ...saved(c1!), key: key(99), name: 'clip-shoe-red', prediction_id: 'pred-old', credits_used: '0.65' },
];
const paid = paidByJob(takes);
const thisRun = 1_200_000;
const model = buildModel({
  plan,
  reviewedSteps: new Set(['still']),
  entries: new Map(takes.map((entry) => [entry.key, entry])),
  paid,
  decisions: latest([
    decided(s1!, 'approve', 1),
    decided(s2!, 'approve'),
    decided(s3!, 'reject'),
    decided(s4!, 'approve'),
  ]),
  progress: { ...running(plan, thisRun), outcome: 'completed' },
});
const [stills, clips] = model.steps;
const item = (name: string) => model.steps.flatMap((step) => step.items).find((i) => i.name === name)!;

describe('the report’s money', () => {
  it('heads with what the campaign paid in all runs, as status says it', () => {
    // 5 still takes at $0.10, 3 clips at $1.00, the removed clip's $0.65.
    expect(model.totals.spent).toBe(4_150_000);
    expect(model.totals.spent).toBe(paidInAllRuns(paid, thisRun));
  });

  it('names the money paid for jobs an edit removed, so the steps and it add up to the headline', () => {
    expect(model.totals.superseded).toBe(650_000);
    expect(stills!.spentUsd + clips!.spentUsd + model.totals.superseded).toBe(model.totals.spent);
    expect(renderTotals(model)).toContain('$0.65 paid for jobs an edit removed (superseded)');
  });

  it.each([
    [
      'a retaken still: this take and all its takes',
      'still-shoe-white',
      'this take $0.10, $0.20 with retakes',
    ],
    ['a still made once', 'still-shoe-marble', '$0.10'],
    ['a clip made', 'clip-shoe-white', '$1.00'],
    ['a clip skipped since its still was rejected: never created', 'clip-bag-white', 'no cost (not made)'],
  ])('%s', (_, name, line) => {
    expect(costLine(item(name))).toBe(line);
  });

  it('prices a job not made yet at its planned price', () => {
    const pending = buildModel({
      plan,
      reviewedSteps: new Set(['still']),
      entries: new Map(),
      decisions: new Map(),
      progress: running(plan),
    });
    expect(costLine(pending.steps[1]!.items[0]!)).toBe('$1.00');
  });

  it('shows no price on a skipped card', () => {
    const html = renderItem(item('clip-bag-white'), (file) => file);
    expect(html).not.toContain('$1.00');
    expect(html).toContain('no cost (not made)');
    expect(c2 && c3).toBeTruthy();
  });
});

describe('charged refusals', () => {
  // The field drill's money check: the ledger held $0.60 for flagged outputs that no manifest line
  // lists, and the report's total had left it out (status had it).
  const flagged = (job: typeof s4, take: number, usd: string) => ({
    key: job!.key,
    take,
    model: job!.model,
    stage: 'output' as const,
    code: 'CONTENT_FLAGGED',
    message: 'flagged',
    credits_used: usd,
    at: '2026-11-27T10:00:00Z',
  });
  const withRefusals = buildModel({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map(takes.map((entry) => [entry.key, entry])),
    paid,
    decisions: new Map(),
    progress: { ...running(plan, 0), outcome: 'completed' },
    refusals: new Map([
      [s4!.key, [flagged(s4, 0, '0.10')]],
      // A refused prompt is not charged.
      [c4!.key, [{ ...flagged(c4, 0, '0'), stage: 'prompt' as const }]],
      // A job an edit removed, flagged in an earlier run.
      [key(98), [{ ...flagged(s4, 0, '0.10'), key: key(98) }]],
    ]),
  });

  it('are in the total, in their step and among the superseded, so everything adds up', () => {
    expect(withRefusals.totals.spent).toBe(4_150_000 + 200_000);
    expect(withRefusals.steps[0]!.spentUsd).toBe(stills!.spentUsd + 100_000);
    expect(withRefusals.totals.superseded).toBe(650_000 + 100_000);
    const steps = withRefusals.steps.reduce((sum, step) => sum + step.spentUsd, 0);
    expect(steps + withRefusals.totals.superseded).toBe(withRefusals.totals.spent);
  });
});

describe('take numbers', () => {
  it('are one number on the badge, in the details and in the file name: the regeneration counter', () => {
    const html = renderItem(item('still-shoe-white'), (file) => file);
    expect(html).toContain('<span class="badge">approved · take 1 · ▶ 1</span>');
    expect(html).toContain('approve (take 1)');
    expect(html).toContain('still/still-shoe-white.take1.png');
    expect(html).not.toContain('take 2');
  });
});

describe('report’s own output', () => {
  it('says the total in all runs and why the steps add up to less', () => {
    expect(spentLine(model)).toBe(
      "spent $4.15 in all runs: $3.50 on this plan's steps, $0.65 paid for jobs an edit removed (superseded)",
    );
  });
});

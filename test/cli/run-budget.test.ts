/**
 * `budget.max_usd` is the campaign's, in all its runs together: after $4.31 spent (a superseded
 * take and a job an edit removed), an edited re-run whose jobs left cost $4.23 is priced against
 * what is left, shown beside what earlier runs spent, and refused when it cannot fit; the
 * workflow is handed what is left. `budget.per_run_usd` keeps the per-run meaning.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { preflight } from '../../cli/preflight.ts';
import { budgetText, runBudgetOf } from '../../cli/run-budget.ts';
import type { Plan } from '../../plan/types.ts';
import { Manifest } from '../../records/manifest.ts';
import { key, stillsAndClips } from '../helpers/review-fixtures.ts';
import { planOk, planText } from '../plan/write-spec.ts';
import { manifestEntry } from '../records/manifest-entry.ts';

const service = {
  estimate: async () => {
    throw new Error('every job has a catalogue price');
  },
  account: { balance: async () => ({ credits: parseUsd('100') }) },
} as unknown as Parameters<typeof preflight>[0];

/** Stills $0.10 and clips $0.9575: $4.23 to run; $4.31 paid by earlier runs of the campaign. */
async function editedCampaign(budget: { max?: string; perRun?: string }): Promise<Plan> {
  const base = stillsAndClips();
  const outputDir = await mkdtemp(join(tmpdir(), 'run-budget-'));
  const manifest = await Manifest.open(outputDir);
  const gone = key(99);
  // A job an edit removed, paid twice: its first take superseded by a retake.
  await manifest.record({ ...manifestEntry(gone), prediction_id: 'p-1', credits_used: '4.00' }, null);
  await manifest.record({ ...manifestEntry(gone), prediction_id: 'p-2', credits_used: '0.31' }, 'p-1');
  return {
    ...base,
    outputDir,
    budget: budget.max === undefined ? null : parseUsd(budget.max),
    ...(budget.perRun !== undefined && { perRunBudget: parseUsd(budget.perRun) }),
    jobs: base.jobs.map((job) => ({ ...job, usd: job.step === 'clip' ? 957_500 : 100_000 })),
  };
}

describe('the budget is the campaign’s', () => {
  it('shows what earlier runs spent and what is left, and starts what fits', async () => {
    const report = await preflight(service, await editedCampaign({ max: '12' }));
    expect(report.cost).toBe(parseUsd('4.23'));
    expect(budgetText(report.budget)).toBe('budget $12.00: $4.31 spent in earlier runs, $7.69 left');
    expect(report.refusals).toEqual([]);
    // What the workflow is held to: what is left, not the whole budget again.
    expect(report.budget.run).toBe(parseUsd('7.69'));
  });

  it('refuses a run that fits the budget alone but not beside what earlier runs spent', async () => {
    const report = await preflight(service, await editedCampaign({ max: '8' }));
    expect(report.refusals).toEqual([
      'the 8 jobs left cost $4.23, over the $3.69 left of the budget of $8.00 ($4.31 spent in earlier runs)',
    ]);
  });

  it('per_run_usd bounds each run on its own, and the lesser limit holds', async () => {
    const perRun = await preflight(service, await editedCampaign({ perRun: '5' }));
    expect(perRun.refusals).toEqual([]);
    expect(perRun.budget.run).toBe(parseUsd('5'));
    expect(budgetText(perRun.budget)).toBe('per run $5.00');
    const both = await preflight(service, await editedCampaign({ max: '12', perRun: '4' }));
    expect(both.refusals).toEqual(['the 8 jobs left cost $4.23, over the per-run budget of $4.00']);
    expect(both.budget.run).toBe(parseUsd('4'));
  });

  it('a campaign past its budget leaves nothing, never less than nothing', () => {
    expect(runBudgetOf({ budget: parseUsd('4'), perRunBudget: undefined }, parseUsd('4.31')).run).toBe(0);
  });

  it('reads budget.per_run_usd from the spec, and refuses an empty budget', async () => {
    const spec = (budget: string) => `version: 1
campaign: budgets
budget: ${budget}
steps:
  - id: hero
    model: I1
    input: { prompt: "a shoe" }
`;
    const plan = await planOk(spec('{ max_usd: 12, per_run_usd: "2.50" }'));
    expect([plan.budget, plan.perRunBudget]).toEqual([parseUsd('12'), parseUsd('2.5')]);
    expect('perRunBudget' in (await planOk(spec('{ max_usd: 12 }')))).toBe(false);
    const empty = await planText(spec('{}'));
    expect(empty.ok).toBe(false);
    if (!empty.ok)
      expect(empty.problems[0]!.message).toContain('must set max_usd (the campaign’s), per_run_usd');
  });
});

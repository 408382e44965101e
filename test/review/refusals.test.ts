/** What the pages show of refusals: the job's state, and the refusal rate per matrix value. */
import { describe, expect, it } from 'vitest';
import { statusLine, summaryTable } from '../../cli/progress-view.ts';
import type { CampaignProgress } from '../../contract/progress.ts';
import type { PlannedJob } from '../../plan/types.ts';
import type { RefusalRecord } from '../../records/refusals.ts';
import { stateOf } from '../../review/job-state.ts';
import { refusalRates } from '../../review/refusal-rates.ts';

const key = (n: number) => n.toString(16).padStart(32, '0');
const job = (n: number, vars: Record<string, string>) =>
  ({ key: key(n), step: 'hero', name: `hero-${n}`, vars, variant: 1 }) as unknown as PlannedJob;
const refusal = (n: number, take: number): RefusalRecord => ({
  key: key(n),
  take,
  model: 'I1',
  stage: take === 0 ? 'prompt' : 'output',
  code: 'X',
  message: 'no',
  credits_used: '0',
  at: '2026-11-27T00:00:00Z',
});

describe('refusal rate per matrix value', () => {
  const jobs = [
    job(1, { product: 'watch', colour: 'red' }),
    job(2, { product: 'watch', colour: 'blue' }),
    job(3, { product: 'sneaker', colour: 'red' }),
    job(4, { product: 'sneaker', colour: 'blue' }),
  ];

  it('names the value the service keeps refusing first, with its jobs and refusals', () => {
    const refusals = new Map([
      [key(1), [refusal(1, 0), refusal(1, 1)]],
      [key(2), [refusal(2, 0)]],
    ]);
    expect(refusalRates(jobs, refusals)).toEqual([
      { axis: 'product', value: 'watch', jobs: 2, refusedJobs: 2, refusals: 3 },
      { axis: 'colour', value: 'red', jobs: 2, refusedJobs: 1, refusals: 2 },
      { axis: 'colour', value: 'blue', jobs: 2, refusedJobs: 1, refusals: 1 },
      { axis: 'product', value: 'sneaker', jobs: 2, refusedJobs: 0, refusals: 0 },
    ]);
  });

  it('is empty when nothing was refused', () => {
    expect(refusalRates(jobs, new Map())).toEqual([]);
  });
});

describe('a refused job on the page', () => {
  const facts = { reviewed: false, entry: undefined, decision: undefined, parent: null, failed: false };
  it.each([
    ['refused, nothing more to try', { ...facts, refused: true, campaign: 'running' as const }, 'refused'],
    [
      'refused once, a retry under way',
      { ...facts, refused: false, campaign: 'running' as const },
      'generating',
    ],
    [
      'a child of a refused job is skipped',
      { ...facts, parent: 'refused' as const, campaign: 'ended' as const },
      'skipped',
    ],
  ])('%s: %s', (_, input, state) => {
    expect(stateOf(input)).toBe(state);
  });
});

describe('status and the summary name refused and timed-out jobs', () => {
  const progress: CampaignProgress = {
    campaign: 'launch',
    outcome: 'completed',
    steps: [
      {
        id: 'hero',
        model: 'I1',
        planned: 6,
        running: 0,
        waiting: 0,
        succeeded: 3,
        cached: 0,
        failed: 0,
        skipped: 0,
        canceled: 0,
        created: 7,
        regenerated: 1,
        refused: 2,
        timed_out: 1,
      },
    ],
    spent: 480_000,
    committed: 0,
    budget: null,
    recentFailures: [{ job: 'hero-watch', step: 'hero', message: 'refused: the prompt was refused' }],
    startedAt: 0,
    etaMs: null,
    runs: 1,
  };

  it('the status line counts them as not done: its headline counts outputs, as the bars do', () => {
    expect(statusLine(progress)).toMatch(/^launch: 3\/6 done/);
  });

  it('the summary has a column for each, and lists why', () => {
    const table = summaryTable(progress);
    expect(table.split('\n')[0]).toMatch(/refused\s+timed out/);
    expect(table.split('\n')[1]).toMatch(/\b2\s+1\s+1$/);
    expect(table).toContain('hero/hero-watch: refused: the prompt was refused');
  });
});

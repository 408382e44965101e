/** A step's `review:` as the plan stores it, and what gates make of a plan's price (plan/review.ts). */
import { describe, expect, it } from 'vitest';
import { durationMs, type ReviewSpec, reviewRuleOf } from '../../plan/review.ts';
import { reviewCosts } from '../../plan/review-costs.ts';
import type { PlannedJob, PlannedStep } from '../../plan/types.ts';

describe('reviewRuleOf: the defaults, written down', () => {
  const rows: [string, ReviewSpec | undefined, ReturnType<typeof reviewRuleOf>][] = [
    ['no field: no gate', undefined, null],
    ['false: no gate', false, null],
    [
      'true: wait for ever, reject on timeout, no new prompt',
      true,
      { timeoutMs: null, onTimeout: 'reject', editPrompt: false },
    ],
    [
      'every field',
      { timeout: '72h', on_timeout: 'approve', edit_prompt: true },
      { timeoutMs: 259_200_000, onTimeout: 'approve', editPrompt: true },
    ],
    [
      'a timeout alone rejects',
      { timeout: '30m' },
      { timeoutMs: 1_800_000, onTimeout: 'reject', editPrompt: false },
    ],
  ];
  it.each(rows)('%s', (_, spec, rule) => expect(reviewRuleOf(spec)).toEqual(rule));

  it.each([
    ['45s', 45_000],
    ['2d', 172_800_000],
  ])('%s is %i ms', (text, ms) => expect(durationMs(text)).toBe(ms));
  it('refuses what is not a duration', () =>
    expect(() => durationMs('3 days')).toThrow(/must be a duration/));
});

describe('reviewCosts', () => {
  const step = (id: string, review: boolean): PlannedStep => ({
    id,
    model: 'I1',
    from: null,
    retries: 2,
    concurrency: null,
    jobCount: 0,
    ...(review ? { review: { timeoutMs: null, onTimeout: 'reject', editPrompt: false } } : {}),
  });
  const job = (key: string, stepId: string, parent: string | null, usd: number) =>
    ({ key, step: stepId, parent, usd }) as PlannedJob;
  // still (reviewed) → clip → upscale; a logo step without a gate.
  const jobs = [
    job('s1', 'still', null, 100),
    job('c1', 'clip', 's1', 500),
    job('u1', 'upscale', 'c1', 50),
    job('s2', 'still', null, 100),
    job('c2', 'clip', 's2', 500),
    job('l1', 'logo', null, 30),
  ];
  const steps = [step('still', true), step('clip', false), step('upscale', false), step('logo', false)];

  it('splits the price into what runs before any approval and what approvals may add', () => {
    expect(reviewCosts(jobs, steps, (j) => j.usd!)).toEqual({
      reviewedUsd: 200,
      beforeApprovalsUsd: 230,
      worstCaseUsd: 1_280,
    });
  });

  it('a reviewed step below another: its jobs wait for the first decision too', () => {
    const nested = [step('still', true), step('clip', true), step('upscale', false), step('logo', false)];
    expect(reviewCosts(jobs, nested, (j) => j.usd!)).toEqual({
      reviewedUsd: 200,
      beforeApprovalsUsd: 230,
      worstCaseUsd: 1_280,
    });
  });

  it('is null without a gate', () => {
    expect(
      reviewCosts(
        jobs,
        steps.map((s) => step(s.id, false)),
        (j) => j.usd!,
      ),
    ).toBeNull();
  });
});

/** A step's `on_refusal:` and `timeout:` as the planner reads them: the rule, the prices, the errors. */
import { describe, expect, it } from 'vitest';
import { extraTakes, refusalRuleOf } from '../../plan/refusal.ts';
import { refusalWorstCase } from '../../plan/refusal-costs.ts';
import { planOk, planText } from './write-spec.ts';

const spec = (step: string, model = 'I1', input = '{ prompt: "a {{product}}" }') => `version: 1
campaign: refusals
steps:
  - id: hero
    model: ${model}
    matrix: { product: [sneaker, watch] }
    input: ${input}
${step}`;

describe('on_refusal and timeout, planned', () => {
  it('absent: the step carries neither, so the plans of older specs stay byte for byte the same', async () => {
    const plan = await planOk(spec(''));
    expect(Object.keys(plan.steps[0]!)).toEqual([
      'id',
      'model',
      'from',
      'retries',
      'concurrency',
      'jobCount',
    ]);
    expect(plan.jobs.every((job) => job.fallbackUsd === undefined)).toBe(true);
  });

  it.each([
    ['    on_refusal: skip', { kind: 'skip' }],
    ['    on_refusal: { retry: 2 }', { kind: 'retry', times: 2 }],
    ['    on_refusal: { fallback: I4 }', { kind: 'fallback', model: 'I4' }],
  ])('%s', async (line, rule) => {
    expect((await planOk(spec(line))).steps[0]!.onRefusal).toEqual(rule);
  });

  it('a fallback prices each job on the fallback model too (I2: $0.05)', async () => {
    const plan = await planOk(spec('    on_refusal: { fallback: I2 }'));
    expect(plan.jobs.map((job) => [job.usd, job.fallbackUsd])).toEqual([
      [120_000, 50_000],
      [120_000, 50_000],
    ]);
  });

  it('timeout: a duration in ms', async () => {
    expect((await planOk(spec('    timeout: 90s'))).steps[0]!.timeoutMs).toBe(90_000);
  });

  it.each([
    ['    on_refusal: { retry: 0 }', '8:26: steps[0].on_refusal.retry must be at least 1, not the number 0'],
    [
      '    on_refusal: retry',
      '8:17: steps[0].on_refusal must be skip, { retry: N } or { fallback: <model> }, not the text "retry"',
    ],
    [
      '    on_refusal: { fallback: V1 }',
      '8:29: V1 makes videos and I1 makes images: a fallback must make the same kind',
    ],
    ['    on_refusal: { fallback: I1 }', "8:29: the fallback must be another model than the step's own (I1)"],
    [
      '    timeout: 5 minutes',
      '8:14: steps[0].timeout must be a duration like "30m", "72h" or "7d" (a whole number of s, m, h or d), not the text "5 minutes"',
    ],
  ])('%s is refused at its line and column', async (line, message) => {
    const result = await planText(spec(line));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => `${p.line}:${p.column}: ${p.message}`)).toEqual([message]);
  });

  it('a fallback that does not take the step input is refused where the fallback is named', async () => {
    const result = await planText(
      spec('    on_refusal: { fallback: I3 }', 'I2', '{ prompt: "a {{product}}", aspect_ratio: "3:2" }'),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ line: 8, column: 29 });
    expect(result.problems[0]!.message).toMatch(/the fallback model I3 does not take this step's input/);
  });
});

describe('the worst case a refusal rule adds', () => {
  it.each([
    [undefined, 0],
    ['skip' as const, 0],
    [{ retry: 3 }, 3],
    [{ fallback: 'I2' as const }, 1],
  ])('%o: %i more takes per job at most', (written, takes) => {
    expect(extraTakes(refusalRuleOf(written))).toBe(takes);
  });
});

describe("the preflight's worst case (plan/refusal-costs.ts)", () => {
  it('retry: N pays each job N more times; a fallback once more at its own price; skip adds nothing', async () => {
    const retry = await planOk(spec('    on_refusal: { retry: 2 }'));
    const fallback = await planOk(spec('    on_refusal: { fallback: I2 }'));
    const skip = await planOk(spec('    on_refusal: skip'));
    const price = (job: { usd: number | null }) => job.usd ?? 0;
    // Two I1 jobs at $0.12: $0.48 more with two retries each, $0.10 more with I2 ($0.05) fallbacks.
    expect(refusalWorstCase(retry.jobs, retry.steps, price)).toBe(480_000);
    expect(refusalWorstCase(fallback.jobs, fallback.steps, price)).toBe(100_000);
    expect(refusalWorstCase(skip.jobs, skip.steps, price)).toBeNull();
  });
});

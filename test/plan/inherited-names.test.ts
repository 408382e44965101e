/**
 * Keys named like what every JavaScript object inherits are ordinary keys: a matrix axis called
 * `constructor` makes its jobs, and a combination without an include-only `toString` says so
 * instead of rendering a function's source into a prompt. (`__proto__` itself is refused: see
 * the broken-spec corpus, 47-proto-key.)
 */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../plan/index.ts';
import { planOk, planText } from './write-spec.ts';

describe('inherited names as keys', () => {
  it('an axis named constructor makes one job per value', async () => {
    const plan = await planOk(`version: 1
campaign: names
steps:
  - id: still
    model: I1
    matrix: { constructor: [oak, pine] }
    input: { prompt: "a {{constructor}} table" }
`);
    expect(plan.jobs.map((job) => job.input.prompt)).toEqual(['a oak table', 'a pine table']);
  });

  it('a combination without an include-only toString is a problem, not a function in the prompt', async () => {
    const result = await planText(`version: 1
campaign: names
steps:
  - id: still
    model: I1
    matrix:
      wood: [oak, pine]
      include: [{ wood: oak, toString: polished }]
    input: { prompt: "a {{wood}} table, {{toString}}" }
`);
    expect(
      result.ok ? result.plan.jobs.map((job) => job.input.prompt) : result.problems.map(formatProblem),
    ).toEqual([
      expect.stringMatching(
        /:9:41: step "still" with wood=pine: \{\{toString\}\} has no value in this combination$/,
      ),
    ]);
  });
});

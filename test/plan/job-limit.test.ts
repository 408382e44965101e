/**
 * The whole spec's job limit (`limits.jobs`, default 1,000,000): refused at the step that passes
 * it, with the arithmetic, before that step is expanded, so a huge spec fails with a message
 * instead of exhausting memory.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../plan/index.ts';
import { planOk, planText } from './write-spec.ts';

const still = (id: string, extra = '') =>
  `  - id: ${id}\n    model: I1\n    input: { prompt: "a lamp {{shade}} {{variant}}" }\n${extra}`;

async function problems(yaml: string): Promise<string[]> {
  const result = await planText(yaml);
  if (result.ok) throw new Error(`planned ${result.plan.jobs.length} jobs; expected a refusal`);
  return result.problems.map((problem) => formatProblem(problem).replace(/^.*campaign\.yaml:/, ''));
}

describe('the spec-wide job limit', () => {
  it('refuses 100 steps of 100,000 jobs at the 11th step, with the arithmetic', async () => {
    const axis = Array.from({ length: 100 }, (_, i) => i).join(', ');
    const steps = Array.from({ length: 100 }, (_, i) =>
      still(`s${i + 1}`, `    matrix: { shade: [${axis}] }\n    repeat: 1000\n`),
    );
    const yaml = `version: 1\ncampaign: huge\nsteps:\n${steps.join('')}`;
    expect(await problems(yaml)).toEqual([
      '54:9: step "s11" takes the spec past its limit of 1,000,000 jobs: 1,000,000 jobs in the steps before it + up to 100,000 here (100 combinations × 1000 variants); raise limits.jobs if you mean it',
    ]);
  });

  it('counts chained steps through their parents, and is raised by limits.jobs', async () => {
    const spec = (limit: number) => `version: 1
campaign: chained
limits: { jobs: ${limit} }
steps:
${still('still', '    matrix: { shade: [red, blue, green] }\n')}  - id: clip
    model: V4
    from: still
    matrix: { mode: [standard, pro] }
    input: { prompt: "orbit", mode: "{{mode}}" }
`;
    expect(await problems(spec(8))).toEqual([
      '9:9: step "clip" takes the spec past its limit of 8 jobs: 3 jobs in the steps before it + up to 6 here (3 parent jobs × 2 combinations × 1 variant); raise limits.jobs if you mean it',
    ]);
    expect((await planOk(spec(9))).jobs).toHaveLength(9);
  });

  it('bounds a matrix before exclude, plus one combination per include entry', async () => {
    const yaml = `version: 1
campaign: bounded
limits: { jobs: 4 }
steps:
${still('still', '    matrix:\n      shade: [red, blue, green]\n      exclude: [{ shade: red }]\n      include: [{ shade: white }, { shade: black }]\n')}`;
    expect(await problems(yaml)).toEqual([
      '5:9: step "still" takes the spec past its limit of 4 jobs: 0 jobs in the steps before it + up to 5 here (5 combinations × 1 variant); raise limits.jobs if you mean it',
    ]);
  });
});

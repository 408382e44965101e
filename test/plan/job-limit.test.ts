/**
 * The whole spec's job limit (`limits.jobs`, default 1,000,000): refused at the step that passes
 * it, with the arithmetic, before that step is expanded, so a huge spec fails with a message
 * instead of exhausting memory.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem, planCampaign } from '../../plan/index.ts';
import { planOk, planText, writeSpec } from './write-spec.ts';

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

describe('limits a spec may set', () => {
  it('a spec cannot raise its limits past what the machine plans: refused at the line, before anything is built', async () => {
    const axis = Array.from({ length: 10_000 }, (_, i) => i).join(', ');
    const yaml = `version: 1
campaign: huge
limits: { jobs: 100000000, jobs_per_step: 10000000 }
steps:
${still('s1', `    matrix: { shade: [${axis}], size: [${axis}] }\n`)}`;
    const started = Date.now();
    expect(await problems(yaml)).toEqual([
      '3:17: limits.jobs is 100,000,000, above the 1,000,000 jobs this machine plans; a spec cannot raise it so far: pass --max-jobs 100000000 if the machine has the memory (about 1 KB a job)',
      '3:43: limits.jobs_per_step is 10,000,000, above the 1,000,000 jobs this machine plans; a spec cannot raise it so far: pass --max-jobs 10000000 if the machine has the memory (about 1 KB a job)',
      expect.stringContaining('above the cap of 1,000,000 per step'),
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('--max-jobs lets the spec’s limits go further', async () => {
    const yaml = `version: 1\ncampaign: big\nlimits: { jobs: 2000000 }\nsteps:\n${still('s1', '    matrix: { shade: [red] }\n')}`;
    expect((await planText(yaml)).ok).toBe(false);
    expect((await planCampaign(writeSpec(yaml), { maxJobs: 2_000_000 })).ok).toBe(true);
  });
});

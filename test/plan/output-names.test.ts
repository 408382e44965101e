/**
 * output.name: files named from a template, for the campaign or one step, checked when the spec
 * is validated. A user sees every unsafe or colliding name as file:line:col before anything runs.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../plan/index.ts';
import { planOk, planText } from './write-spec.ts';

const spec = (output: string, stepOutput = '') => `version: 1
campaign: names
output: ${output}
steps:
  - id: still
    model: I1
    matrix: { product: [Watch, shoe], colour: [red, blue] }
    input: { prompt: "a {{colour}} {{product}}", aspect_ratio: "16:9" }${stepOutput}
`;

async function problems(yaml: string): Promise<string[]> {
  const result = await planText(yaml);
  return result.ok
    ? []
    : result.problems.map(formatProblem).map((line) => line.replace(/^.*?:(\d+:\d+:)/, '$1'));
}

describe('output names from a template', () => {
  it('names each file from the campaign template, values made safe ("16:9" gives "16-9")', async () => {
    const plan = await planOk(
      spec('{ name: "{{product}}/{{colour}}-{{aspect}}" }')
        .replace('prompt:', 'x: 1, prompt:')
        .replace('x: 1, ', '')
        .replace('matrix: {', 'matrix: { aspect: ["16:9"],'),
    );
    expect(plan.jobs.map((job) => job.file)).toEqual([
      'Watch/red-16-9',
      'Watch/blue-16-9',
      'shoe/red-16-9',
      'shoe/blue-16-9',
    ]);
    // Job names, the identity of jobs in records and the review page, are unchanged.
    expect(plan.jobs[0]!.name).toBe('still-16-9-watch-red');
  });

  it('keeps the default names without a template', async () => {
    const plan = await planOk(spec('{ dir: out }'));
    expect(plan.jobs.every((job) => job.file === undefined)).toBe(true);
  });

  it("a step's own output.name wins over the campaign's", async () => {
    const plan = await planOk(
      spec('{ name: "{{product}}" }', '\n    output: { name: "{{colour}}/{{product}}" }'),
    );
    expect(plan.jobs[0]!.file).toBe('red/Watch');
  });

  it('reports jobs with one name in one line, the first pair named and the rest counted', async () => {
    expect(await problems(spec('{ name: "{{colour}}" }'))).toEqual([
      '3:17: jobs "still-watch-red" and "still-shoe-red" of step "still" both get the output name "red": add a matrix key or {{variant}} to output.name (and 1 more job like it)',
    ]);
  });

  it.each([
    ['"../{{product}}-{{colour}}"', /holds "\.\.": a name may not leave its folder/],
    ['"/etc/{{product}}-{{colour}}"', /is an absolute path/],
    ['"{{product}}-{{colour}}?"', /holds "\?", which common file systems refuse/],
    ['"{{product}}-{{colour}}\\u0007"', /holds control character U\+0007/],
    ['"con/{{product}}-{{colour}}"', /"con", a device name on Windows/],
    ['"{{product}}-{{colour}}."', /ending with a dot or space/],
    [
      '"{{product}}-{{colour}}/{{prodcut}}"',
      /unknown variable \{\{prodcut\}\} in output.name \(did you mean "product"\?\)/,
    ],
  ])('refuses output.name %s where it is written', async (name, message) => {
    const found = await problems(spec(`{ name: ${name} }`));
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(/^3:\d+: /);
    expect(found.join('\n')).toMatch(message);
  });

  it('refuses a value that renders a name leaving its folder', async () => {
    const found = await problems(
      spec('{ name: "{{product}}/{{colour}}" }').replace('colour: [red, blue]', 'colour: [red, ".."]'),
    );
    expect(found.join('\n')).toMatch(
      /^3:\d+: step "still": job "still-watch": output.name gives "Watch\/\.\." holds "\.\."/m,
    );
  });
});

/**
 * The broken-spec corpus: each test/fixtures/specs/broken/NN-name.yaml sits beside a
 * NN-name.expected listing every `line:col: message` the planner must print for it, no more and
 * no fewer (`<fixtures>` stands for test/fixtures/specs, so messages with absolute paths compare).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem, planCampaign } from '../../plan/index.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/specs');
const broken = path.join(fixtures, 'broken');
const specs = readdirSync(broken)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

describe('broken specs', () => {
  it('has a corpus of at least 30 specs, each with its expected messages', () => {
    expect(specs.length).toBeGreaterThanOrEqual(30);
    for (const name of specs) expect(readdirSync(broken)).toContain(name.replace(/\.yaml$/, '.expected'));
  });

  it.each(specs)('%s', async (name) => {
    const file = path.join(broken, name);
    const expected = readFileSync(file.replace(/\.yaml$/, '.expected'), 'utf8')
      .trimEnd()
      .split('\n');
    const result = await planCampaign(file);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const printed = result.problems.map((problem) =>
      formatProblem(problem).replaceAll(fixtures, '<fixtures>'),
    );
    expect(printed).toEqual(expected.map((line) => `${file}:${line}`.replaceAll(fixtures, '<fixtures>')));
  });
});

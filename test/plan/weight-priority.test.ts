/** `weight:` and `priority:` in a spec: kept in the plan when written, absent otherwise, refused when out of range. */
import { describe, expect, it } from 'vitest';
import { planOk, planText } from './write-spec.ts';

const spec = (extra: string) => `
version: 1
campaign: weighted
${extra}
steps:
  - id: still
    model: I4
    input: { prompt: "A lamp" }
`;

describe('weight and priority', () => {
  it('are kept in the plan as written', async () => {
    const plan = await planOk(spec('weight: 3\npriority: 2'));
    expect([plan.weight, plan.priority]).toEqual([3, 2]);
  });

  it('are absent when not written, so other plans stay as they were', async () => {
    const plan = await planOk(spec(''));
    expect('weight' in plan || 'priority' in plan).toBe(false);
  });

  it.each([
    ['weight: 0', 'weight'],
    ['weight: -1', 'weight'],
    ['priority: 1.5', 'priority'],
    ['priority: 1000', 'priority'],
  ])('%s is refused', async (line, field) => {
    const result = await planText(spec(line));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.message).join('\n')).toMatch(new RegExp(field));
  });
});

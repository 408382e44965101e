import { describe, expect, it } from 'vitest';
import { expandMatrix } from '../../plan/matrix.ts';
import { Matrix } from '../../plan/schema.ts';

/** Parsed as the loader would, so the test feeds what a spec feeds. */
const expand = (matrix: unknown) => expandMatrix(Matrix.parse(matrix));

describe('matrix expansion (GitHub Actions semantics)', () => {
  it('reproduces the include example of the GitHub Actions documentation', () => {
    // https://docs.github.com/actions/using-jobs/using-a-matrix-for-your-jobs#example-expanding-configurations
    const combinations = expand({
      fruit: ['apple', 'pear'],
      animal: ['cat', 'dog'],
      include: [
        { color: 'green' },
        { color: 'pink', animal: 'cat' },
        { fruit: 'apple', shape: 'circle' },
        { fruit: 'banana' },
        { fruit: 'banana', animal: 'cat' },
      ],
    });
    expect(combinations).toEqual([
      { fruit: 'apple', animal: 'cat', color: 'pink', shape: 'circle' },
      { fruit: 'apple', animal: 'dog', color: 'green', shape: 'circle' },
      { fruit: 'pear', animal: 'cat', color: 'pink' },
      { fruit: 'pear', animal: 'dog', color: 'green' },
      { fruit: 'banana' },
      { fruit: 'banana', animal: 'cat' },
    ]);
  });

  it('drops every combination that partially matches an exclude entry, before include', () => {
    const combinations = expand({
      os: ['linux', 'mac', 'windows'],
      node: [18, 20],
      exclude: [{ os: 'windows' }, { os: 'mac', node: 18 }],
      include: [{ os: 'windows', node: 22 }],
    });
    expect(combinations).toEqual([
      { os: 'linux', node: 18 },
      { os: 'linux', node: 20 },
      { os: 'mac', node: 20 },
      { os: 'windows', node: 22 },
    ]);
  });

  it('makes one combination per include entry when there are no axes, and one when there is nothing', () => {
    expect(expand({ include: [{ a: 1 }, { a: 2, b: true }] })).toEqual([{ a: 1 }, { a: 2, b: true }]);
    expect(expandMatrix(undefined)).toEqual([{}]);
  });

  it('tells 1, "1" and true apart in exclude, and mixes entries naming different axes', () => {
    const combinations = expand({
      n: [1, '1', true],
      m: ['x', 'y'],
      exclude: [{ n: '1' }, { n: 1, m: 'y' }, { m: 'x', n: true }],
    });
    expect(combinations).toEqual([
      { n: 1, m: 'x' },
      { n: true, m: 'y' },
    ]);
  });

  it('applies 10,000 exclude entries over 100,000 combinations (a quadratic match never finished)', () => {
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    const exclude = range(10_000).map((i) => ({ a: i % 1000, b: Math.floor(i / 1000) }));
    const combinations = expand({ a: range(1000), b: range(100), exclude });
    expect(combinations).toHaveLength(90_000);
    expect(combinations[0]).toEqual({ a: 0, b: 10 });
    expect(combinations.some(({ b }) => (b as number) < 10)).toBe(false);
  });

  it('treats names every object inherits (constructor, toString) as normal keys', () => {
    const expected: Record<string, string>[] = [
      { colour: 'red', constructor: 'x', toString: 'y' },
      { colour: 'blue', toString: 'y' },
    ];
    expect(
      expand({ colour: ['red', 'blue'], include: [{ colour: 'red', constructor: 'x' }, { toString: 'y' }] }),
    ).toEqual(expected);
  });
});

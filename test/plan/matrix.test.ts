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
});

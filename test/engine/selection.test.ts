import { describe, expect, it } from 'vitest';
import type { JobRef, PendingJob } from '../../contract/campaign.ts';
import {
  longestChainsFirst,
  type SelectionRules,
  select,
  stepHeights,
} from '../../workflows/engine/jobs/selection.ts';

const job = (i: number, step: number, parent: string | null = null, usd = 100): PendingJob => ({
  job: { i, key: `k${i}`, name: `job-${i}`, parent, step, usd } satisfies JobRef,
  regen: 0,
});
const waiting = [job(0, 0), job(1, 1, 'k0'), job(2, 0), job(3, 1, 'k2'), job(4, 0)];
const open: SelectionRules = {
  max: 10,
  windowRoom: 10,
  parentUnfinished: () => false,
  stepRoom: () => Number.POSITIVE_INFINITY,
  fits: () => true,
};
const names = (jobs: readonly PendingJob[]) => jobs.map((p) => p.job.i);

describe('select', () => {
  it.each<[string, Partial<SelectionRules>, number[], number[], boolean]>([
    ['everything when nothing binds', {}, [0, 1, 2, 3, 4], [], false],
    ['at most max', { max: 2 }, [0, 1], [2, 3, 4], false],
    ['at most the window room', { windowRoom: 3 }, [0, 1, 2], [3, 4], false],
    [
      'children of unfinished parents wait in place',
      { parentUnfinished: (j) => j.parent !== null },
      [0, 2, 4],
      [1, 3],
      false,
    ],
    ['a step at its own limit waits', { stepRoom: (s) => (s === 0 ? 2 : 9) }, [0, 1, 2, 3], [4], false],
    [
      'the first job over budget stops the selection',
      { fits: (_, also) => also < 300 },
      [0, 1, 2],
      [3, 4],
      true,
    ],
  ])('%s', (_, rules, picked, rest, budgetReached) => {
    const selection = select(waiting, { ...open, ...rules });
    expect(names(selection.picked)).toEqual(picked);
    expect(names(selection.rest)).toEqual(rest);
    expect(selection.budgetReached).toBe(budgetReached);
  });

  it('leaves the waiting list it was given untouched', () => {
    const before = names(waiting);
    select(waiting, { ...open, max: 1 });
    expect(names(waiting)).toEqual(before);
  });
});

describe('stepHeights', () => {
  it.each<[string, (number | undefined)[], number[]]>([
    ['one step', [undefined], [0]],
    ['stills feeding videos', [undefined, 0], [1, 0]],
    ['a chain of three', [undefined, 0, 1], [2, 1, 0]],
    ['two children of one step: the longer chain counts', [undefined, 0, 0, 2], [2, 0, 1, 0]],
    ['two roots', [undefined, undefined, 1], [0, 1, 0]],
    ['a step listed before its parent', [1, undefined], [0, 1]],
  ])('%s', (_, from, heights) => {
    expect(stepHeights(from)).toEqual(heights);
  });
});

describe('longestChainsFirst', () => {
  // Plan order: still-0, clip-0, still-1, clip-1, still-2 (stills are step 0, clips step 1).
  const plan = [job(0, 0), job(1, 1, 'k0'), job(2, 0), job(3, 1, 'k2'), job(4, 0)];

  it.each<[string, number[], number[]]>([
    ['parents first, each group in plan order', [1, 0], [0, 2, 4, 1, 3]],
    ['every step a leaf: the plan order', [0, 0], [0, 1, 2, 3, 4]],
  ])('%s', (_, heights, order) => {
    expect(names(longestChainsFirst(plan, heights))).toEqual(order);
  });

  it('selects a ready still before the clips of stills already done', () => {
    const ordered = longestChainsFirst(plan, [1, 0]);
    const selection = select(ordered, { ...open, max: 2 });
    expect(names(selection.picked)).toEqual([0, 2]);
  });
});

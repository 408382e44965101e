/**
 * The rules of review gates as tables (workflows/state/review-rules.ts): no server needed. The
 * state moving with the window is review-state.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Release } from '../../contract/campaign.ts';
import { ReviewBatch, type ReviewDecision } from '../../contract/review.ts';
import type { ReviewRule } from '../../plan/review.ts';
import {
  batchProblem,
  covers,
  deadlineOf,
  type Gate,
  type JudgeContext,
  refusalOf,
  releaseOf,
  ruleOf,
  spanOf,
  splitRead,
} from '../../workflows/engine/reviews/review-rules.ts';

const key = (n: number) => n.toString(16).padStart(32, '0');
const gate: Gate = {
  i: 4,
  key: key(4),
  step: 0,
  end: 7,
  usd: 100,
  belowUsd: 500,
  take: 0,
  since: 1_000,
  retaking: false,
  cached: false,
  derived: 0,
};
/** The same job's derivative of its step's first reviewed derive step. */
const derivative: Gate = { ...gate, key: key(40), end: 5, usd: 0, belowUsd: 0, derived: 1 };
const rule: ReviewRule = { timeoutMs: 60_000, onTimeout: 'reject', editPrompt: false };
const context: JudgeContext = { rule, generating: false, decided: false, fits: () => true, ended: false };

describe('refusalOf: may a decision apply?', () => {
  const approve: ReviewDecision = { key: key(4), action: 'approve' };
  const rows: [string, Gate | undefined, ReviewDecision, Partial<JudgeContext>, string | null][] = [
    ['an approval of a waiting take applies', gate, approve, {}, null],
    ['a rejection applies', gate, { ...approve, action: 'reject' }, {}, null],
    ['a regeneration that fits the budget applies', gate, { ...approve, action: 'regenerate' }, {}, null],
    ['an ended campaign takes none', gate, approve, { ended: true }, 'campaign_ended'],
    ['an unknown key', undefined, approve, {}, 'unknown_job'],
    ['a job decided earlier in this run', undefined, approve, { decided: true }, 'not_awaiting_review'],
    ['a job still generating', undefined, approve, { generating: true }, 'not_awaiting_review'],
    ['a job being retaken', { ...gate, retaking: true }, approve, {}, 'not_awaiting_review'],
    [
      'a new prompt where the step does not allow one',
      gate,
      { ...approve, action: 'regenerate', prompt: 'p' },
      {},
      'prompt_not_editable',
    ],
    [
      'a new prompt where it does',
      gate,
      { ...approve, action: 'regenerate', prompt: 'p' },
      { rule: { ...rule, editPrompt: true } },
      null,
    ],
    [
      'a prompt with an approval',
      gate,
      { ...approve, prompt: 'p' },
      { rule: { ...rule, editPrompt: true } },
      'prompt_not_editable',
    ],
    [
      'a regeneration past the budget',
      gate,
      { ...approve, action: 'regenerate' },
      { fits: (usd) => usd < 100 },
      'over_budget',
    ],
    [
      'an approval whose descendants pass the budget',
      gate,
      approve,
      { fits: (usd) => usd < 500 },
      'over_budget',
    ],
    ['an approval of a derivative applies', derivative, { key: key(40), action: 'approve' }, {}, null],
    ['a rejection of a derivative applies', derivative, { key: key(40), action: 'reject' }, {}, null],
    [
      'a derivative is never regenerated: the same operations make the same bytes',
      derivative,
      { key: key(40), action: 'regenerate' },
      {},
      'not_regenerable',
    ],
    [
      'a derivative whose parent is being retaken waits for the new take',
      { ...derivative, retaking: true },
      { key: key(40), action: 'approve' },
      {},
      'not_awaiting_review',
    ],
    [
      'a rejection costs nothing, whatever the budget',
      gate,
      { ...approve, action: 'reject' },
      { fits: () => false },
      null,
    ],
  ];
  it.each(rows)('%s', (_, g, decision, c, reason) => {
    expect(refusalOf(g, decision, { ...context, ...c })?.reason ?? null).toBe(reason);
  });
});

describe('ruleOf: the rule a gate is judged and timed out by', () => {
  const own: ReviewRule = { ...rule, timeoutMs: 1_000 };
  const crops: ReviewRule = { ...rule, timeoutMs: 2_000, onTimeout: 'approve' };
  const steps = [
    { id: 'still', model: 'I1' as const, retries: 0, concurrency: null, jobCount: 1, review: own },
    {
      id: 'hero',
      model: 'I1' as const,
      retries: 0,
      concurrency: null,
      jobCount: 1,
      derived: [{ id: 'square', review: crops }],
    },
  ];
  const rows: [string, Pick<Gate, 'step' | 'derived'>, ReviewRule | null][] = [
    ["a job's gate: its step's", { step: 0, derived: 0 }, own],
    ["a derivative's: its derive step's", { step: 1, derived: 1 }, crops],
    ['a job of a step without its own gate', { step: 1, derived: 0 }, null],
  ];
  it.each(rows)('%s', (_, g, expected) => {
    expect(ruleOf(steps, g)).toEqual(expected);
  });
});

describe('deadlineOf: when a waiting take times out', () => {
  const rows: [string, Gate, ReviewRule | null, number | null][] = [
    ['since + timeout', gate, rule, 61_000],
    ['no timeout: never', gate, { ...rule, timeoutMs: null }, null],
    ['a take being made: not yet', { ...gate, retaking: true }, rule, null],
    ['a step without a gate', gate, null, null],
  ];
  it.each(rows)('%s', (_, g, r, due) => expect(deadlineOf(g, r)).toBe(due));
});

describe('releaseOf: what a decision lets go', () => {
  const rows: [string, Parameters<typeof releaseOf>, ReturnType<typeof releaseOf>][] = [
    [
      'approval: descendants read so far',
      [gate, 'approve', 100, undefined],
      { from: 5, count: 2, effect: 'admit' },
    ],
    [
      'approval: only those behind the cursor',
      [gate, 'approve', 6, undefined],
      { from: 5, count: 1, effect: 'admit' },
    ],
    ['approval before any descendant was read', [gate, 'approve', 5, undefined], null],
    ['rejection: the same, to skip', [gate, 'reject', 100, undefined], { from: 5, count: 2, effect: 'skip' }],
    ['a leaf job releases nothing', [{ ...gate, end: 5 }, 'reject', 100, undefined], null],
    [
      'regeneration: the job itself, next take, with the prompt',
      [{ ...gate, take: 2 }, 'regenerate', 100, 'new'],
      { from: 4, count: 1, effect: 'retake', regen: 3, prompt: 'new' },
    ],
  ];
  it.each(rows)('%s', (_, args, release) => expect(releaseOf(...args)).toEqual(release));
});

describe('spanOf and splitRead: one read serves neighbouring releases', () => {
  const admit = (from: number, count: number): Release => ({ from, count, effect: 'admit' });
  const rows: [string, Release[], number, ReturnType<typeof spanOf>][] = [
    ['nothing to read', [], 500, undefined],
    ['one release', [admit(5, 2)], 500, { from: 5, count: 2 }],
    [
      'neighbours in the page join the read',
      [admit(5, 1), admit(9, 1), admit(3, 1), admit(7, 1)],
      500,
      { from: 5, count: 5 },
    ],
    ['one past the page waits', [admit(5, 1), admit(600, 1)], 500, { from: 5, count: 1 }],
    ['a long release is read a page at a time', [admit(5, 1_200)], 500, { from: 5, count: 500 }],
  ];
  it.each(rows)('%s', (_, releases, page, span) => expect(spanOf(releases, page)).toEqual(span));

  it('hands each release its jobs and keeps what the read did not reach', () => {
    const releases = [
      admit(5, 1),
      { from: 9, count: 1, effect: 'retake', regen: 1 } as Release,
      admit(3, 1),
      admit(7, 600),
    ];
    const jobs = Array.from({ length: 500 }, (_, n) => ({ i: 5 + n }));
    const { served, left } = splitRead(releases, { from: 5, count: 500 }, jobs);
    expect(served.map(({ release, jobs: its }) => [release.from, its.length])).toEqual([
      [5, 1],
      [9, 1],
      [7, 498],
    ]);
    expect(left).toEqual([admit(3, 1), admit(505, 102)]);
  });
});

describe('covers: descendants of open gates', () => {
  const ends = new Map([
    [2, 5],
    [10, 11],
    [20, 30],
  ]);
  const rows: [number, boolean][] = [
    [2, false], // the gate's own job is not its descendant
    [3, true],
    [4, true],
    [5, false],
    [11, false],
    [25, true],
    [30, false],
    [0, false],
  ];
  it.each(rows)('index %i → %s', (i, parked) =>
    expect(covers([2, 10, 20], (s) => ends.get(s)!, i)).toBe(parked),
  );
});

describe('batchProblem agrees with the ReviewBatch schema', () => {
  const rows: unknown[] = [
    { decisions: [{ key: 'k', action: 'approve' }] },
    { decisions: [{ key: 'k', action: 'regenerate', prompt: 'p', note: '', by: 'ana' }] },
    { decisions: [] },
    { decisions: Array.from({ length: 501 }, () => ({ key: 'k', action: 'approve' })) },
    { decisions: [{ key: '', action: 'approve' }] },
    { decisions: [{ key: 'k', action: 'keep' }] },
    { decisions: [{ key: 'k', action: 'approve', prompt: '' }] },
    { decisions: [{ key: 'k', action: 'approve', note: 'x'.repeat(2001) }] },
    { decisions: [{ key: 'k', action: 'approve', by: 7 }] },
    { decisions: ['k'] },
    null,
    {},
  ];
  it.each(rows.map((row, n) => [n, row]))('batch %i', (_, row) => {
    expect(batchProblem(row) === null).toBe(ReviewBatch.safeParse(row).success);
  });
});

/**
 * The rules of review gates as tables (workflows/state/review-rules.ts), and the gate state moving
 * with the campaign's window (reviews.ts through CampaignState): no server needed.
 */
import { describe, expect, it } from 'vitest';
import type { JobRef, StepInfo } from '../../contract/campaign.ts';
import { ReviewBatch, type ReviewDecision } from '../../contract/review.ts';
import type { ReviewRule } from '../../plan/review.ts';
import { CampaignState } from '../../workflows/campaign-state.ts';
import {
  batchProblem,
  covers,
  deadlineOf,
  type Gate,
  type JudgeContext,
  refusalOf,
  releaseOf,
} from '../../workflows/state/review-rules.ts';

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
};
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

describe('review gates in the campaign state', () => {
  const steps: StepInfo[] = [
    { id: 'still', model: 'I1', retries: 1, concurrency: null, jobCount: 3, review: rule },
    { id: 'clip', model: 'V4', retries: 0, concurrency: null, jobCount: 3 },
  ];
  /** still-n at 2n with its clip at 2n + 1. */
  const jobs = (from: number, to: number): JobRef[] =>
    [0, 1, 2]
      .flatMap((n) => [
        {
          i: 2 * n,
          key: key(2 * n),
          name: `still-${n}`,
          parent: null,
          step: 0,
          usd: 100,
          end: 2 * n + 2,
          belowUsd: 250,
        },
        { i: 2 * n + 1, key: key(2 * n + 1), name: `clip-${n}`, parent: key(2 * n), step: 1, usd: 250 },
      ])
      .slice(from, to);
  const names = (picked: { job: JobRef }[]) => picked.map(({ job }) => job.name);
  let now = 0;
  const state = new CampaignState(steps, 6, 10, 2_000, {
    limits: { createsPerSecond: 10, maxInFlight: 10 },
    now: 0,
    clock: () => now,
  });

  it('a finished still waits for review; its clip leaves the window and the window moves on', () => {
    state.admit(jobs(0, 4));
    expect(names(state.pick(10))).toEqual(['still-0', 'still-1']);
    state.onCreated(0, 'p0', 0);
    state.onFinished(0, { kind: 'succeeded', creditsUsed: 100, file: 'a.png' });
    expect(state.pick(10)).toEqual([]);
    expect(state.waitingCount()).toBe(1); // clip-1 waits for still-1; clip-0 is parked, not waiting
    state.admit(jobs(4, 6));
    expect(names(state.pick(10))).toEqual(['still-2']);
    expect(state.progress('c', 0).steps[0]).toMatchObject({ awaiting_review: 1, approved: 0 });
  });

  it('an approval releases the parked clip; a rejection skips it; the campaign stays open until all are decided', () => {
    const { ack, records } = state.gates.review([{ key: key(0), action: 'approve' }], 'T');
    expect(ack).toEqual({ accepted: [key(0)], refused: [] });
    expect(records).toEqual([{ key: key(0), action: 'approve', take: 0, at: 'T', source: 'reviewer' }]);
    expect(state.gates.nextRelease()).toEqual({ from: 1, count: 1, effect: 'admit' });
    state.gates.released(state.gates.nextRelease()!, jobs(1, 2));
    expect(names(state.pick(10))).toEqual(['clip-0']);
    for (const i of [1, 2, 4]) {
      state.onCreated(i, `p${i}`, 0);
      state.onFinished(i, { kind: 'succeeded', creditsUsed: i === 1 ? 250 : 100, file: 'f' });
    }
    expect(state.isDone()).toBe(false);
    expect(state.gates.review([{ key: key(2), action: 'reject' }], 'T').ack.accepted).toEqual([key(2)]);
    state.gates.released(state.gates.nextRelease()!, jobs(3, 4));
    expect(state.progress('c', 0).steps[1]).toMatchObject({ skipped: 1 });
  });

  it('gates carry across continue-as-new, and time out by on_timeout', () => {
    const carried = state.carry();
    expect(carried.reviews?.keys).toBe(key(4));
    const next = new CampaignState(steps, 6, 10, 2_000, {
      carried,
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
      clock: () => now,
    });
    expect(next.isDone()).toBe(false);
    expect(next.gates.deadline()).toBe(60_000);
    now = 60_000;
    expect(next.gates.timeOut('T')).toEqual([
      { key: key(4), action: 'reject', take: 0, at: 'T', source: 'timeout' },
    ]);
    next.gates.released(next.gates.nextRelease()!, jobs(5, 6));
    expect(next.isDone()).toBe(true);
    expect(next.progress('c', 0).steps[0]).toMatchObject({ awaiting_review: 0, approved: 1, rejected: 2 });
  });
});

describe('carried gates stay compact', () => {
  it('10,000 takes awaiting review carry in well under 1 MB', () => {
    const steps: StepInfo[] = [
      { id: 'still', model: 'I1', retries: 1, concurrency: null, jobCount: 10_000, review: rule },
      { id: 'clip', model: 'V4', retries: 0, concurrency: null, jobCount: 10_000 },
    ];
    const state = new CampaignState(steps, 20_000, 200, null, {
      limits: { createsPerSecond: 100, maxInFlight: 200 },
      now: 0,
      clock: () => 1_764_000_000_000,
    });
    for (let n = 0; n < 10_000; n++) {
      state.gates.saved(
        {
          i: 2 * n,
          key: key(2 * n),
          name: 'x',
          parent: null,
          step: 0,
          usd: 120_000,
          end: 2 * n + 2,
          belowUsd: 650_000,
        },
        0,
      );
    }
    const carried = state.carry();
    const bytes = JSON.stringify(carried.reviews).length;
    expect(bytes).toBeLessThan(800_000);
    const next = new CampaignState(steps, 20_000, 200, null, {
      carried,
      limits: { createsPerSecond: 100, maxInFlight: 200 },
      now: 0,
    });
    expect(next.progress('c', 0).steps[0]).toMatchObject({ awaiting_review: 10_000 });
    expect(next.gates.review([{ key: key(19_998), action: 'approve' }], 'T').ack.accepted).toEqual([
      key(19_998),
    ]);
  });
});

/**
 * Content refusals and deadlines through the reducer (workflows/engine/step.ts), as tables: what
 * each take of a still becomes under its step's `on_refusal:` (skip, retry: N, fallback: model),
 * what it costs, and what its clip is left to do. The failure policy's rows `refused` and
 * `timed_out` (contract/failure-policy.ts) are what is exercised.
 */

import { describe, expect, it } from 'vitest';
import type { CreateOutcome, FinishResult } from '../../contract/activities.ts';
import type { PendingJob } from '../../contract/campaign.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  createdOutcome,
  FALLBACK_USD,
  flightsOf,
  loaded,
  type Shape,
  STILL_USD,
  succeeded,
  tick,
  viewOf,
} from './step-fixture.ts';

/** What the service does with one take of the still. */
type Take =
  | 'refused at create'
  /** Its output flagged in an earlier run that recorded nothing, found by this run's create. */
  | 'flagged in an earlier run'
  | 'output flagged'
  | 'succeeded'
  | 'timed out'
  | 'failed';

function ended(outcome: FinishResult['outcome']): FinishResult {
  return { outcome, heir: null, waitedMs: 1_000, at: 1_000 };
}

/**
 * Plays `takes` on the still of a one-still campaign (chained to a clip), each take as the next
 * create the reducer asks for, and says what was created, what it cost and where the jobs ended.
 */
function play(shape: Omit<Shape, 'stills'>, takes: readonly Take[]) {
  const m = loaded({ stills: 1, chained: true, retries: 0, ...shape });
  const created: { regen: number; model: string; usd: number }[] = [];
  for (const take of takes) {
    const [create] = step(m, tick);
    if (create?.kind !== 'create') throw new Error(`expected a create of the still, got ${create?.kind}`);
    const pending = create.batch.find(({ job }) => job.step === 0) as PendingJob;
    created.push({ regen: pending.regen, model: pending.model ?? 'I4', usd: pending.job.usd });
    const i = pending.job.i;
    const refusedAtCreate: CreateOutcome = {
      kind: 'rejected',
      i,
      code: 'CONTENT_REFUSED',
      message: 'the prompt was refused',
      failure: 'refused',
    };
    const flaggedEarlier: CreateOutcome = { ...refusedAtCreate, creditsUsed: pending.job.usd };
    const atCreate = { 'refused at create': refusedAtCreate, 'flagged in an earlier run': flaggedEarlier }[
      take as 'refused at create'
    ];
    const outcomes = atCreate ? [atCreate] : [createdOutcome(i)];
    const effects = step(m, { kind: 'created', batch: create.batch, outcomes });
    if (atCreate) continue;
    const [flight] = flightsOf(effects);
    const paid = pending.job.usd;
    const result: FinishResult =
      take === 'succeeded'
        ? succeeded(paid)
        : take === 'output flagged'
          ? ended({ kind: 'failed', creditsUsed: paid, message: 'flagged', failure: 'refused' })
          : take === 'timed out'
            ? ended({ kind: 'failed', creditsUsed: 0, message: 'late', failure: 'timed_out' })
            : ended({ kind: 'failed', creditsUsed: 0, message: 'bad' });
    step(m, { kind: 'batch-finished', flights: [flight!], results: [{ kind: 'finished', ...result }] });
  }
  const [next] = step(m, tick);
  const still = viewOf(m).counts[0]!;
  return {
    created,
    spent: viewOf(m).spent,
    still: {
      succeeded: still.succeeded,
      refused: still.refused,
      timed_out: still.timed_out,
      failed: still.failed,
      regenerated: still.regenerated,
    },
    /** What the campaign creates next: the clip (whose create finds no parent output and skips it) or nothing. */
    next: next?.kind === 'create' ? next.batch.map(({ job }) => job.name) : [],
  };
}

const I4 = (regen: number, usd = STILL_USD) => ({ regen, model: 'I4', usd });
const still = (
  counts: Partial<Record<'succeeded' | 'refused' | 'timed_out' | 'failed' | 'regenerated', number>>,
) => ({
  succeeded: 0,
  refused: 0,
  timed_out: 0,
  failed: 0,
  regenerated: 0,
  ...counts,
});

describe('on_refusal: a refusal is its own outcome, never a blind retry', () => {
  it.each<[string, Omit<Shape, 'stills'>, Take[], ReturnType<typeof play>]>([
    [
      'skip (default): a prompt refused at create ends the still refused, free, even with retries left',
      { retries: 2 },
      ['refused at create'],
      { created: [I4(0)], spent: 0, still: still({ refused: 1 }), next: ['clip-0'] },
    ],
    [
      'skip: a flagged output ends the still refused and is paid',
      {},
      ['output flagged'],
      { created: [I4(0)], spent: STILL_USD, still: still({ refused: 1 }), next: ['clip-0'] },
    ],
    [
      'skip: a flagged output an earlier run could not record, found at create, ends the still refused, paid once',
      {},
      ['flagged in an earlier run'],
      { created: [I4(0)], spent: STILL_USD, still: still({ refused: 1 }), next: ['clip-0'] },
    ],
    [
      'retry: 1: a flagged output found at create is paid, and a new take follows',
      { onRefusal: { kind: 'retry', times: 1 } },
      ['flagged in an earlier run', 'succeeded'],
      {
        created: [I4(0), I4(1)],
        spent: 2 * STILL_USD,
        still: still({ succeeded: 1, regenerated: 1 }),
        next: ['clip-0'],
      },
    ],
    [
      'retry: 2: a new take (new regeneration, so a new seed and key) after each refusal, then refused',
      { onRefusal: { kind: 'retry', times: 2 } },
      ['output flagged', 'refused at create', 'output flagged'],
      {
        created: [I4(0), I4(1), I4(2)],
        spent: 2 * STILL_USD,
        still: still({ refused: 1, regenerated: 2 }),
        next: ['clip-0'],
      },
    ],
    [
      'retry: 2: a take that passes ends the still succeeded, every take paid',
      { onRefusal: { kind: 'retry', times: 2 } },
      ['output flagged', 'succeeded'],
      {
        created: [I4(0), I4(1)],
        spent: 2 * STILL_USD,
        still: still({ succeeded: 1, regenerated: 1 }),
        next: ['clip-0'],
      },
    ],
    [
      'fallback: the next take runs on the fallback model at its price',
      { onRefusal: { kind: 'fallback', model: 'I2' } },
      ['refused at create', 'succeeded'],
      {
        created: [I4(0), { regen: 1, model: 'I2', usd: FALLBACK_USD }],
        spent: FALLBACK_USD,
        still: still({ succeeded: 1, regenerated: 1 }),
        next: ['clip-0'],
      },
    ],
    [
      'fallback: tried once; refused there too, the still ends refused',
      { onRefusal: { kind: 'fallback', model: 'I2' } },
      ['output flagged', 'output flagged'],
      {
        created: [I4(0), { regen: 1, model: 'I2', usd: FALLBACK_USD }],
        spent: STILL_USD + FALLBACK_USD,
        still: still({ refused: 1, regenerated: 1 }),
        next: ['clip-0'],
      },
    ],
    [
      'a take after a refusal keeps every retry of `retries:` for an ordinary failure',
      { retries: 1, onRefusal: { kind: 'retry', times: 1 } },
      ['output flagged', 'failed', 'succeeded'],
      {
        created: [I4(0), I4(1), I4(2)],
        spent: STILL_USD * 2,
        still: still({ succeeded: 1, regenerated: 2 }),
        next: ['clip-0'],
      },
    ],
    [
      'an ordinary failure still follows retries, untouched by on_refusal',
      { retries: 1, onRefusal: { kind: 'retry', times: 3 } },
      ['failed', 'failed'],
      { created: [I4(0), I4(1)], spent: 0, still: still({ failed: 1, regenerated: 1 }), next: ['clip-0'] },
    ],
  ])('%s', (_, shape, takes, expected) => {
    expect(play(shape, takes)).toEqual(expected);
  });

  it('a refusal is listed with the recent failures, so status and the pages say why', () => {
    const m = loaded({ stills: 1, onRefusal: { kind: 'skip' } });
    const [create] = step(m, tick);
    if (create?.kind !== 'create') throw new Error('expected a create');
    step(m, {
      kind: 'created',
      batch: create.batch,
      outcomes: [{ kind: 'rejected', i: 0, code: 'CONTENT_REFUSED', message: 'no', failure: 'refused' }],
    });
    expect(viewOf(m).recentFailures).toEqual([{ job: 'still-0', step: 'still', message: 'refused: no' }]);
    expect(viewOf(m).done).toBe(true);
  });

  it('a retry after a refusal is held to the budget like any job: none is created past it', () => {
    const result = play({ onRefusal: { kind: 'retry', times: 3 }, budget: STILL_USD * 2 }, [
      'output flagged',
      'output flagged',
    ]);
    expect(result.spent).toBe(2 * STILL_USD);
    // The third take does not fit: submission stops (the clip does not start either).
    expect(result.next).toEqual([]);
    expect(result.still).toMatchObject({ regenerated: 2, refused: 0 });
  });
});

describe('timeout: a prediction past its deadline ends timed_out', () => {
  it.each<[string, Omit<Shape, 'stills'>, Take[], ReturnType<typeof play>]>([
    [
      'no retries: the still ends timed_out (refunded: canceled upstream) and its clip is skipped',
      { retries: 0 },
      ['timed out'],
      { created: [I4(0)], spent: 0, still: still({ timed_out: 1 }), next: ['clip-0'] },
    ],
    [
      'retries: 1: one more take, then timed_out',
      { retries: 1 },
      ['timed out', 'timed out'],
      { created: [I4(0), I4(1)], spent: 0, still: still({ timed_out: 1, regenerated: 1 }), next: ['clip-0'] },
    ],
    [
      'retries: 1: a take within the deadline succeeds',
      { retries: 1 },
      ['timed out', 'succeeded'],
      {
        created: [I4(0), I4(1)],
        spent: STILL_USD,
        still: still({ succeeded: 1, regenerated: 1 }),
        next: ['clip-0'],
      },
    ],
  ])('%s', (_, shape, takes, expected) => {
    expect(play(shape, takes)).toEqual(expected);
  });
});

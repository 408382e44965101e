/**
 * The reducer's cases for download faults, as tables: what a finish that ended with a
 * named download outcome does to its job and the counts `status` shows, and a batch that reports
 * its first jobs while others still run (each job reported about as it ends).
 */

import { describe, expect, it } from 'vitest';
import type { FinishBatchItem, FinishOutcome } from '../../contract/activities.ts';
import type { FailureKind } from '../../contract/failure-policy.ts';
import type { Model } from '../../workflows/engine/model.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  createdOutcome,
  flightsOf,
  jobsOf,
  kinds,
  modelOf,
  STILL_USD,
  succeeded,
  tick,
  viewOf,
} from './step-fixture.ts';

/** `stills` stills (one retry each) created and in flight, none naming an heir: one finish batch. */
function inFlight(stills: number) {
  const m = modelOf({ stills, retries: 1 });
  step(m, tick);
  step(m, { kind: 'jobs-loaded', jobs: jobsOf({ stills }) });
  const [create] = step(m, tick);
  if (create?.kind !== 'create') throw new Error(`expected a create, got ${create?.kind}`);
  const effects = step(m, {
    kind: 'created',
    batch: create.batch,
    outcomes: create.batch.map(({ job }) => createdOutcome(job.i)),
  });
  expect(kinds(effects)).toEqual(['finish-batch']);
  return { m, flights: flightsOf(effects) };
}

const failedWith = (failure: FailureKind): FinishBatchItem => ({
  kind: 'finished',
  outcome: { kind: 'failed', creditsUsed: STILL_USD, message: `because ${failure}`, failure },
  heir: null,
  waitedMs: 900,
  at: 1_000,
});

function countsAfter(m: Model) {
  const { failed, regenerated, succeeded, download_failed, download_stalled, outputs_expired } =
    viewOf(m).counts[0]!;
  return {
    waiting: viewOf(m).waiting,
    spent: viewOf(m).spent,
    counts: { succeeded, failed, regenerated, download_failed, download_stalled, outputs_expired },
  };
}

describe('step: a finish that ended with a named download outcome', () => {
  it.each<[FailureKind, ReturnType<typeof countsAfter>]>([
    // Paid, and never made again: the service keeps the prediction for the next run to fetch.
    [
      'download_failed',
      {
        waiting: 0,
        spent: STILL_USD,
        counts: {
          succeeded: 0,
          failed: 1,
          regenerated: 0,
          download_failed: 1,
          download_stalled: undefined,
          outputs_expired: undefined,
        },
      },
    ],
    [
      'download_stalled',
      {
        waiting: 0,
        spent: STILL_USD,
        counts: {
          succeeded: 0,
          failed: 1,
          regenerated: 0,
          download_failed: undefined,
          download_stalled: 1,
          outputs_expired: undefined,
        },
      },
    ],
    // Nothing left at the service to fetch: a new take, within the step's retries (and budget).
    [
      'output_expired',
      {
        waiting: 1,
        spent: STILL_USD,
        counts: {
          succeeded: 0,
          failed: 0,
          regenerated: 1,
          download_failed: undefined,
          download_stalled: undefined,
          outputs_expired: 1,
        },
      },
    ],
  ])('%s: %o', (failure, expected) => {
    const { m, flights } = inFlight(1);
    step(m, { kind: 'batch-finished', flights, results: [failedWith(failure)] });
    expect(countsAfter(m)).toEqual(expected);
  });

  it('an output expired past the retries fails its job, counted under both names', () => {
    const { m, flights } = inFlight(1);
    step(m, { kind: 'batch-finished', flights, results: [failedWith('output_expired')] });
    const [create] = step(m, tick);
    if (create?.kind !== 'create') throw new Error('expected the new take');
    expect(create.batch).toMatchObject([{ regen: 1 }]);
    const again = flightsOf(step(m, { kind: 'created', batch: create.batch, outcomes: [createdOutcome(0)] }));
    step(m, { kind: 'batch-finished', flights: again, results: [failedWith('output_expired')] });
    expect(viewOf(m).counts[0]).toMatchObject({ failed: 1, regenerated: 1, outputs_expired: 2 });
    expect(Progress.campaignProgress(m.jobs, 'c', 0).recentFailures).toEqual([
      { job: 'still-0', step: 'still', message: 'because output_expired' },
    ]);
  });

  it('a file fetched on a fresh link is a success, counted as a refreshed link', () => {
    const { m, flights } = inFlight(1);
    const fresh = succeeded(STILL_USD);
    const outcome: FinishOutcome = {
      kind: 'succeeded',
      creditsUsed: STILL_USD,
      file: 'f.png',
      refreshed: true,
    };
    step(m, { kind: 'batch-finished', flights, results: [{ kind: 'finished', ...fresh, outcome }] });
    expect(viewOf(m).counts[0]).toMatchObject({ succeeded: 1, links_refreshed: 1 });
  });
});

describe('step: a finish batch reports each job about as it ends', () => {
  it('jobs reported pending are finished by a batch of their own; the ended ones count at once', () => {
    const { m, flights } = inFlight(3);
    const effects = step(m, {
      kind: 'batch-finished',
      flights,
      results: [{ kind: 'finished', ...succeeded(STILL_USD) }, { kind: 'pending' }, { kind: 'pending' }],
    });
    expect(effects).toEqual([{ kind: 'finish-batch', flights: [flights[1], flights[2]] }]);
    expect(viewOf(m).counts[0]).toMatchObject({ succeeded: 1 });
    expect(viewOf(m).active).toBe(2);
    // The rest report later, from their own batch: every job ends once.
    step(m, {
      kind: 'batch-finished',
      flights: [flights[1]!, flights[2]!],
      results: [
        { kind: 'finished', ...succeeded(STILL_USD) },
        { kind: 'finished', ...succeeded(STILL_USD) },
      ],
    });
    expect(viewOf(m).counts[0]).toMatchObject({ succeeded: 3 });
    expect(viewOf(m).active).toBe(0);
    expect(viewOf(m).spent).toBe(3 * STILL_USD);
  });

  it('a batch with nothing pending asks for no further batch', () => {
    const { m, flights } = inFlight(2);
    const effects = step(m, {
      kind: 'batch-finished',
      flights,
      results: flights.map(() => ({ kind: 'finished' as const, ...succeeded(STILL_USD) })),
    });
    expect(kinds(effects)).not.toContain('finish-batch');
  });
});

describe('step: the wall-clock pulse publishes whatever the activities are doing', () => {
  it('with nothing published for a whole pulse, progress is published and the clock moves by the pulse', () => {
    const { m, flights } = inFlight(2);
    step(m, {
      kind: 'batch-finished',
      flights: [flights[0]!],
      results: [{ kind: 'finished', ...succeeded(STILL_USD) }],
    });
    // Published once; then an activity retries for minutes and nothing reports.
    expect(kinds(step(m, tick))).toContain('publish');
    const before = m.clock.at;
    expect(step(m, { kind: 'pulse', from: before, ms: 10_000 })).toEqual([
      { kind: 'publish', indexed: false },
    ]);
    expect(m.clock.at).toBe(before + 10_000);
    expect(Progress.campaignProgress(m.jobs, 'c', m.clock.at).at).toBe(before + 10_000);
  });

  it('a campaign that published within the pulse publishes nothing more', () => {
    const { m, flights } = inFlight(2);
    step(m, {
      kind: 'batch-finished',
      flights: [flights[0]!],
      results: [{ kind: 'finished', ...succeeded(STILL_USD) }],
    });
    step(m, tick);
    const now = m.clock.at;
    m.run.publishedAt = now;
    expect(step(m, { kind: 'pulse', from: now - 10_000, ms: 5_000 })).toEqual([]);
  });
});

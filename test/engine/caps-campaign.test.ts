/**
 * A capped campaign whose notes name its execution (workflows/engine/caps.ts over
 * money/allowance.ts, docs/caps.md "Any order of notes" and "What a campaign reserves"): its notes
 * carry numbered asks and cumulative totals, a grant it already took changes nothing, and
 * reservation that no job can still need (jobs found recorded, the plan read to its end) goes
 * back to the ledger at once instead of at the campaign's end.
 */
import { describe, expect, it } from 'vitest';
import type { CapHold } from '../../contract/caps.ts';
import type { CapsGrant } from '../../contract/caps-messages.ts';
import type { Effect } from '../../workflows/engine/effects.ts';
import type { Model } from '../../workflows/engine/model.ts';
import { allowanceOf } from '../../workflows/engine/money/allowance.ts';
import { progressOf } from '../../workflows/engine/notices/progress.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  createdOutcome,
  finishedOne,
  flightsOf,
  jobsOf,
  modelOf,
  STILL_USD,
  succeeded,
  tick,
} from './step-fixture.ts';

const HOLD: CapHold = { cap: 'daily', model: null, limit: 2_000_000, spent: 480_000 };

/** A campaign of `stills` stills whose allowance names its execution `ra`. */
function byExecution(stills: number, concurrency = 8): Model {
  const m = modelOf({ stills, capped: true, concurrency });
  const model: Model = {
    ...m,
    jobs: { ...m.jobs, allowance: allowanceOf({ reserved: [], unreported: [], hold: null, run: 'ra' }) },
  };
  step(model, tick);
  step(model, { kind: 'jobs-loaded', jobs: jobsOf({ stills }) });
  return model;
}

const notes = (effects: readonly Effect[]) =>
  effects.flatMap((e) => (e.kind === 'tell-caps' ? [e.note] : []));
const grant = (m: Model, g: Partial<CapsGrant> & { granted: number }) =>
  step(m, { kind: 'caps-grant', grant: { model: 'I4', micros: 0, hold: null, run: 'ra', ...g } });

describe('a capped campaign known by its execution', () => {
  it('numbers its asks', () => {
    const m = byExecution(4);
    expect(notes(step(m, tick))).toEqual([{ kind: 'ask', model: 'I4', unit: STILL_USD, count: 4, seq: 0 }]);
  });

  it('a grant it already took, or an older one arriving late, adds nothing; an older hold does not pause it', () => {
    const m = byExecution(4);
    step(m, tick);
    grant(m, { micros: 2 * STILL_USD, granted: 2 * STILL_USD });
    grant(m, { micros: 2 * STILL_USD, granted: 2 * STILL_USD });
    expect(m.jobs.allowance?.reserved).toEqual({ I4: 2 * STILL_USD });
    grant(m, { micros: 0, hold: HOLD, granted: STILL_USD });
    expect(progressOf(m, 'c', 0).cap_reached).toBeUndefined();
    grant(m, { micros: 0, hold: HOLD, granted: 2 * STILL_USD });
    expect(progressOf(m, 'c', 0).cap_reached).toBe('daily $2 (spent $0.48)');
  });

  it('shows no ETA while a cap holds it: the next job waits on other campaigns’ spend, which no rate foretells', () => {
    const m = byExecution(4);
    step(m, tick);
    // One still made in 1 s of the four.
    Object.assign(m.jobs.pace, { busyMs: 1_000, endedAt: 0 });
    m.jobs.pace.worked[0] = 1;
    m.jobs.tally.stepLatencyMs[0] = 1_000;
    expect(progressOf(m, 'c', 0).etaMs).toBe(4_000);
    grant(m, { micros: 0, hold: HOLD, granted: 0 });
    expect(progressOf(m, 'c', 0)).toMatchObject({ cap_reached: 'daily $2 (spent $0.48)', etaMs: null });
  });

  it('jobs found recorded give their reservation back at once, with the totals so far', () => {
    const m = byExecution(4);
    step(m, tick);
    grant(m, { micros: 4 * STILL_USD, granted: 4 * STILL_USD });
    const [create] = step(m, tick);
    if (create?.kind !== 'create') throw new Error('expected a create');
    // Three of the four were made by an earlier run; one is new.
    const outcomes = create.batch.map(({ job }) =>
      job.i === 0 ? createdOutcome(job.i) : { kind: 'cached' as const, i: job.i },
    );
    const created = step(m, { kind: 'created', batch: create.batch, outcomes });
    expect(notes(created)).toEqual([
      { kind: 'spent', spent: {}, total: {}, returned: { I4: 3 * STILL_USD } },
    ]);
    const [flight] = flightsOf(created);
    const paid = STILL_USD - 10_000;
    expect(notes(step(m, finishedOne(flight!, succeeded(paid))))).toEqual([
      { kind: 'spent', spent: { I4: paid }, total: { I4: paid }, returned: { I4: 4 * STILL_USD - paid } },
    ]);
    expect(m.jobs.allowance?.reserved).toEqual({ I4: 0 });
  });

  it('keeps what the jobs waiting to start may need', () => {
    const m = byExecution(3, 1);
    step(m, tick);
    grant(m, { micros: 3 * STILL_USD, granted: 3 * STILL_USD });
    const effects = step(m, tick);
    expect(notes(effects)).toEqual([]);
    expect(m.jobs.allowance?.reserved).toEqual({ I4: 3 * STILL_USD });
  });
});

/**
 * A capped campaign's decisions (workflows/engine/caps.ts over money/allowance.ts) as tables:
 * no job starts before the ledger grants its worst case, a cap holds the campaign (paused, not
 * stopped, the reason in its progress) until reservation comes, spend is reported and the rest of
 * the reservation given back at the end, and a threshold alert becomes a `cap.threshold` notice.
 */
import { describe, expect, it } from 'vitest';
import type { CapHold } from '../../contract/caps.ts';
import type { Effect } from '../../workflows/engine/effects.ts';
import type { Model } from '../../workflows/engine/model.ts';
import { notices } from '../../workflows/engine/notices/notices.ts';
import { progressOf } from '../../workflows/engine/notices/progress.ts';
import * as Clock from '../../workflows/engine/pacing/clock.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  createdOutcome,
  EVERY_NOTICE,
  finishedOne,
  flightsOf,
  kinds,
  loaded,
  STILL_USD,
  succeeded,
  TARGETS,
  tick,
  viewOf,
} from './step-fixture.ts';

const HOLD: CapHold = { cap: 'monthly', model: null, limit: 5_000_000_000, spent: 4_987_200_000 };

const capsNotes = (effects: readonly Effect[]) =>
  effects.flatMap((e) => (e.kind === 'tell-caps' ? [e.note] : []));
const grant = (m: Model, micros: number, hold: CapHold | null = null) =>
  step(m, { kind: 'caps-grant', grant: { model: 'I4', micros, hold } });

describe('step: spend caps', () => {
  it('an uncapped campaign issues no caps effect', () => {
    const m = loaded({ stills: 2 });
    expect(kinds(step(m, tick))).toEqual(['create']);
  });

  it('nothing starts before a grant: the campaign asks for two windows of its next job, once', () => {
    const m = loaded({ stills: 10, capped: true, concurrency: 2 });
    const first = step(m, tick);
    expect(kinds(first)).not.toContain('create');
    expect(capsNotes(first)).toEqual([{ kind: 'ask', model: 'I4', unit: STILL_USD, count: 4 }]);
    // Asked and unanswered: no second ask.
    expect(capsNotes(step(m, tick))).toEqual([]);
    expect(viewOf(m).committed).toBe(0);
  });

  it('a grant lets as many jobs start as their worst cases fit; the rest ask again, for no more than are left', () => {
    const m = loaded({ stills: 4, capped: true });
    step(m, tick);
    grant(m, 2 * STILL_USD + STILL_USD / 2);
    const effects = step(m, tick);
    const create = effects.find((e) => e.kind === 'create');
    expect(create?.kind === 'create' && create.batch.map((p) => p.job.name)).toEqual(['still-0', 'still-1']);
    expect(capsNotes(effects)).toEqual([{ kind: 'ask', model: 'I4', unit: STILL_USD, count: 2 }]);
    expect(viewOf(m).committed).toBe(2 * STILL_USD);
  });

  it('a held ask pauses the campaign with the cap in its progress, never stops it; a grant resumes it', () => {
    const m = { ...loaded({ stills: 2, capped: true }), notices: notices() };
    step(m, tick);
    expect(kinds(grant(m, 0, HOLD))).toEqual(['log']);
    const progress = progressOf(m, 'c', 0);
    expect(progress.cap_reached).toBe('monthly $5,000 (spent $4,987.20)');
    expect(progress.outcome).toBe('running');
    const waiting = step(m, tick);
    expect(kinds(waiting)).not.toContain('complete');
    expect(kinds(waiting)).not.toContain('create');
    grant(m, 2 * STILL_USD);
    expect(progressOf(m, 'c', 0).cap_reached).toBeUndefined();
    expect(kinds(step(m, tick))).toContain('create');
  });

  it('spend is reported at most once a second, and at once when nothing is left in flight; the end gives the rest back before it completes', () => {
    const m = loaded({ stills: 3, capped: true, limits: { createsPerSecond: 10, maxInFlight: 50 } });
    step(m, tick);
    grant(m, 3 * STILL_USD);
    const [create] = step(m, tick);
    if (create?.kind !== 'create') throw new Error('expected a create');
    const [finish] = step(m, {
      kind: 'created',
      batch: create.batch,
      outcomes: create.batch.map(({ job }) => createdOutcome(job.i)),
    });
    const [a, b, c] = flightsOf([finish!]);
    const paid = STILL_USD - 10_000; // the service charged less than the worst case
    const done = (flight: typeof a) => capsNotes(step(m, finishedOne(flight!, succeeded(paid, 2_000))));
    Clock.observe(m.clock, 2_000);
    expect(done(a)).toEqual([{ kind: 'spent', spent: { I4: paid } }]);
    // Within the second, with one still in flight: kept for later.
    expect(done(b)).toEqual([]);
    // The last one in flight: nothing later would carry it.
    expect(done(c)).toEqual([{ kind: 'spent', spent: { I4: 2 * paid } }]);
    const end = step(m, tick);
    expect(kinds(end).slice(-2)).toEqual(['tell-caps', 'complete']);
    expect(capsNotes(end)).toEqual([{ kind: 'leave', spent: {} }]);
  });

  it('an alert becomes a cap.threshold notice to the campaign targets, under the alert id', () => {
    const m = { ...loaded({ stills: 1, capped: true }), notices: notices(undefined, TARGETS) };
    const alert = {
      cap: 'daily' as const,
      model: null,
      limit: 800_000_000,
      id: '2026-11-27:daily:*:80',
      percent: 80 as const,
      spent: 650_000_000,
    };
    expect(step(m, { kind: 'cap-alert', alert })).toEqual([
      {
        kind: 'notify',
        id: 'cap-2026-11-27:daily:*:80',
        notice: {
          type: 'cap.threshold',
          cap: 'daily',
          model: null,
          percent: 80,
          spent: 650_000_000,
          limit: 800_000_000,
        },
        // The target that wants only the campaign's end is not sent it.
        targets: [EVERY_NOTICE],
      },
    ]);
    expect(step(loaded({ stills: 1, capped: true }), { kind: 'cap-alert', alert })).toEqual([]);
  });
});

/**
 * A service outage through the reducer (failure kind `service_unavailable`, workflows/engine/pacing/outage.ts):
 * jobs the service could not take wait, creates pause and back off, the progress names the pause
 * and its next try, and the first prediction created resumes the campaign. Nothing fails.
 */

import { describe, expect, it } from 'vitest';
import type { CreateOutcome } from '../../contract/activities.ts';
import { effectOf } from '../../contract/failure-policy.ts';
import type { Effect } from '../../workflows/engine/effects.ts';
import type { Model } from '../../workflows/engine/model.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';
import { withPause } from '../../workflows/engine/pacing/outage.ts';
import { step } from '../../workflows/engine/step.ts';
import { createdOutcome, kinds, loaded, tick, viewOf } from './step-fixture.ts';

const down = (i: number, at: number, since = 500): CreateOutcome => ({
  kind: 'unavailable',
  i,
  reason: 'the service answered 503',
  since,
  at,
});

/** The next create the reducer asks for (ticking, and sleeping through any wait it asks for). */
function nextCreate(m: Model): Extract<Effect, { kind: 'create' }> {
  for (let n = 0; n < 10; n++) {
    const effects = step(m, tick);
    const create = effects.find((e) => e.kind === 'create');
    if (create?.kind === 'create') return create;
    const wait = effects.find((e) => e.kind === 'wait');
    if (wait?.kind !== 'wait' || wait.ms === null) throw new Error(`no create: ${kinds(effects)}`);
    step(m, { kind: 'slept', from: m.clock.at, ms: wait.ms });
  }
  throw new Error('no create after 10 ticks');
}

const paused = (m: Model) =>
  withPause(Progress.campaignProgress(m.jobs, 'c', m.clock.at), viewOf(m).outage.current).paused;

describe('step: a service outage', () => {
  it('is a row of the failure table that pauses, never fails or stops', () => {
    expect(effectOf('service_unavailable')).toEqual({ kind: 'pause_campaign' });
  });

  it('sends the jobs back, pauses creates with backoff, names the next try, and resumes by itself', () => {
    const m = loaded({ stills: 4, limits: { createsPerSecond: 2, maxInFlight: 50 } });
    const first = nextCreate(m);
    const second = nextCreate(m);
    expect(first.reconcileSince).toBeUndefined();

    // The first batch comes back unavailable at t=1000: a pause of 5 s, said once in the log.
    const said = step(m, {
      kind: 'created',
      batch: first.batch,
      outcomes: first.batch.map((p) => down(p.job.i, 1_000)),
    });
    expect(said).toContainEqual(
      expect.objectContaining({ kind: 'log', message: 'service unavailable: creates pause' }),
    );
    expect(paused(m)).toEqual({
      kind: 'service_unavailable',
      reason: 'the service answered 503',
      since: 1_000,
      until: 6_000,
    });
    // The batch already under way meets the same outage: the pause in force covers it.
    step(m, {
      kind: 'created',
      batch: second.batch,
      outcomes: second.batch.map((p) => down(p.job.i, 1_200)),
    });
    expect(paused(m)?.until).toBe(6_000);
    expect({
      failed: viewOf(m).counts[0]!.failed,
      waiting: viewOf(m).waiting,
      stop: viewOf(m).stop,
    }).toEqual({
      failed: 0,
      waiting: 4,
      stop: null,
    });

    // No create before the next try; then one that adopts what the outage may have made.
    const retry = nextCreate(m);
    expect(m.clock.at).toBeGreaterThanOrEqual(6_000);
    expect(retry.reconcileSince).toBe(500);
    // Still down: the next pause is twice as long.
    step(m, {
      kind: 'created',
      batch: retry.batch,
      outcomes: retry.batch.map((p) => down(p.job.i, m.clock.at)),
    });
    const again = paused(m)!;
    expect(again.until - m.clock.at).toBe(10_000);
    expect(again.since).toBe(1_000);

    // The service is back: the first prediction created ends the pause.
    const back = nextCreate(m);
    expect(m.clock.at).toBeGreaterThanOrEqual(again.until);
    const resumed = step(m, {
      kind: 'created',
      batch: back.batch,
      outcomes: back.batch.map((p) => createdOutcome(p.job.i, m.clock.at)),
    });
    expect(resumed).toContainEqual(
      expect.objectContaining({ kind: 'log', message: 'service back: creates resume' }),
    );
    expect(paused(m)).toBeUndefined();
    // Jobs sent back and not yet sent again still reconcile; once all were, creates stop doing so.
    const rest = nextCreate(m);
    expect(rest.reconcileSince).toBe(500);
    let batch = rest.batch;
    for (;;) {
      step(m, { kind: 'created', batch, outcomes: batch.map((p) => createdOutcome(p.job.i, m.clock.at)) });
      if (viewOf(m).waiting === 0) break;
      batch = nextCreate(m).batch;
    }
    expect(viewOf(m).outage.reconcileSince).toBeNull();
    expect(viewOf(m).counts[0]!.failed).toBe(0);
  });

  it('a campaign that ended shows no pause', () => {
    const m = loaded({ stills: 1 });
    const create = nextCreate(m);
    step(m, { kind: 'created', batch: create.batch, outcomes: [down(0, 1_000)] });
    const progress = { ...Progress.campaignProgress(m.jobs, 'c', m.clock.at), outcome: 'canceled' as const };
    expect(withPause(progress, viewOf(m).outage.current).paused).toBeUndefined();
  });
});

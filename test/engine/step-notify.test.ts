/**
 * Which notices the reducer decides (workflows/engine/notices/notify.ts), as tables without Temporal:
 * none without targets; the end, completed or stopped, with exact counts and money; a wave of
 * takes awaiting review once, and the next wave again under a new id.
 */
import { describe, expect, it } from 'vitest';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { JobRef } from '../../contract/campaign.ts';
import type { NotifyTarget } from '../../contract/notify.ts';
import type { ReviewAction } from '../../contract/review.ts';
import type { Effect } from '../../workflows/engine/effects.ts';
import type { CampaignEvent } from '../../workflows/engine/events.ts';
import type { Model } from '../../workflows/engine/model.ts';
import * as Notices from '../../workflows/engine/notices/notices.ts';
import { progressOf } from '../../workflows/engine/notices/progress.ts';
import { step } from '../../workflows/engine/step.ts';
import {
  createdOutcome,
  ENDS_ONLY,
  EVERY_NOTICE,
  jobsOf,
  modelOf,
  type Shape,
  STILL_USD,
  TARGETS,
  tick,
} from './step-fixture.ts';

type Notify = Extract<Effect, { kind: 'notify' }>;

/** Stands in for the executor: answers every effect (each prediction succeeds) and keeps the notices. */
class Drive {
  readonly m: Model;
  readonly notices: Notify[] = [];
  /** Every effect kind, in order, to see where a notice falls. */
  readonly kinds: string[] = [];
  private readonly plan: JobRef[];
  private now = 0;

  /** `targets` null: the campaign has no `notify` targets. */
  constructor(shape: Shape, targets: readonly NotifyTarget[] | null = TARGETS) {
    this.m = { ...modelOf(shape), ...(targets && { notices: Notices.notices(undefined, targets) }) };
    this.plan = jobsOf(shape);
  }

  /** Ticks until the campaign completes or waits for a person. */
  settle(): this {
    for (let round = 0; round < 100; round++) {
      const effects = this.send(tick);
      if (effects.some((e) => e.kind === 'complete')) return this;
      const wait = effects.find((e) => e.kind === 'wait');
      if (wait?.kind === 'wait' && wait.ms === null && !effects.some((e) => e.kind === 'create')) return this;
      if (wait?.kind === 'wait' && wait.ms !== null)
        this.send({ kind: 'slept', from: this.m.clock.at, ms: wait.ms });
    }
    throw new Error('the campaign never settled');
  }

  decide(name: string, action: ReviewAction): this {
    const job = this.plan.find((j) => j.name === name)!;
    this.send({ kind: 'review', decisions: [{ key: job.key, action }], at: 'T' });
    return this.settle();
  }

  private send(event: CampaignEvent): Effect[] {
    const effects = step(this.m, event);
    for (const effect of effects) {
      this.kinds.push(effect.kind);
      if (effect.kind === 'notify') this.notices.push(effect);
      this.answer(effect);
    }
    return effects;
  }

  private answer(effect: Effect): void {
    const slice = (from: number, count: number) => this.plan.slice(from, from + count);
    if (effect.kind === 'load-jobs')
      this.send({ kind: 'jobs-loaded', jobs: slice(effect.from, effect.count) });
    if (effect.kind === 'read-released')
      this.send({ kind: 'released', span: effect.span, jobs: slice(effect.span.from, effect.span.count) });
    if (effect.kind === 'create') {
      const outcomes: CreateOutcome[] = effect.batch.map(({ job }) => createdOutcome(job.i, this.now));
      this.send({ kind: 'created', batch: effect.batch, outcomes });
    }
    if (effect.kind === 'finish-batch') {
      this.now += 1_000;
      const results = effect.flights.map(({ pending }) => ({
        kind: 'finished' as const,
        outcome: { kind: 'succeeded' as const, creditsUsed: pending.job.usd, file: 'f.png' },
        heir: null,
        waitedMs: 1_000,
        at: this.now,
      }));
      this.send({ kind: 'batch-finished', flights: effect.flights, results });
    }
  }
}

describe('notices: the end of a campaign', () => {
  it('a campaign without targets decides no notice at all (its commands stay as before)', () => {
    const drive = new Drive({ stills: 3 }, null).settle();
    expect(drive.kinds).toContain('complete');
    expect(drive.kinds).not.toContain('notify');
  });

  it('completed: one notice, just before the end, with exact counts and money', () => {
    const drive = new Drive({ stills: 3, budget: 1_000_000 }).settle();
    expect(drive.notices).toEqual([
      {
        kind: 'notify',
        id: 'completed',
        notice: {
          type: 'campaign.completed',
          summary: {
            steps: [{ id: 'still', succeeded: 3, cached: 0, failed: 0, skipped: 0, canceled: 0 }],
            spent: 3 * STILL_USD,
            budget: 1_000_000,
          },
        },
        targets: [EVERY_NOTICE, ENDS_ONLY],
      },
    ]);
    expect(drive.kinds.slice(-2)).toEqual(['notify', 'complete']);
  });

  it('stopped by the budget: the outcome and its reason, and what was made and paid', () => {
    const drive = new Drive({ stills: 3, budget: 2 * STILL_USD + 1 }).settle();
    expect(drive.notices).toHaveLength(1);
    const [stopped] = drive.notices;
    expect(stopped).toMatchObject({
      id: 'stopped',
      notice: {
        type: 'campaign.stopped',
        outcome: 'budget_reached',
        summary: { steps: [{ id: 'still', succeeded: 2 }], spent: 2 * STILL_USD, budget: 2 * STILL_USD + 1 },
      },
    });
  });
});

describe('notices: takes awaiting review', () => {
  const reviewed: Shape = { stills: 2, chained: true, reviewed: true, retries: 0 };

  it('a wave is announced once, however many ticks and decisions follow while takes still wait', () => {
    const drive = new Drive(reviewed).settle();
    expect(drive.notices).toEqual([
      {
        kind: 'notify',
        id: 'review-awaiting-1',
        notice: { type: 'review.awaiting', steps: [{ id: 'still', awaiting: 2 }] },
        // The target that wants only the campaign's end is not sent it.
        targets: [EVERY_NOTICE],
      },
    ]);
    drive.settle().decide('still-0', 'approve');
    expect(drive.notices).toHaveLength(1);
  });

  it('once every take is decided, a new take awaiting review is a new wave with a new id', () => {
    const drive = new Drive(reviewed).settle().decide('still-0', 'approve').decide('still-1', 'regenerate');
    expect(drive.notices.map((n) => n.id)).toEqual(['review-awaiting-1', 'review-awaiting-2']);
    expect(drive.notices[1]!.notice).toEqual({
      type: 'review.awaiting',
      steps: [{ id: 'still', awaiting: 1 }],
    });
    drive.decide('still-1', 'approve');
    expect(drive.notices.map((n) => n.id)).toEqual(['review-awaiting-1', 'review-awaiting-2', 'completed']);
  });

  it('carried across continue-as-new: a wave announced is not announced again by the next run', () => {
    const first = new Drive(reviewed).settle();
    const carried = Notices.carry(first.m.notices!);
    expect(carried).toMatchObject({ waves: 1, announced: true });
    const next = Notices.notices(carried);
    expect(next.announced).toBe(true);
    expect(Notices.announce(next)).toBe('review-awaiting-2');
  });
});

describe('notices: deliveries', () => {
  it('each delivery is counted; the memo keeps the latest failures in host: reason words', () => {
    const drive = new Drive({ stills: 1 });
    for (const failure of [
      null,
      'a.example: 500',
      'b.example: 502',
      null,
      'c.example: 404',
      'd.example: 503',
    ])
      expect(step(drive.m, { kind: 'notified', failure })).toEqual([]);
    expect(progressOf(drive.m, 'c', 0).notifications).toEqual({
      delivered: 2,
      failed: 4,
      failures: ['b.example: 502', 'c.example: 404', 'd.example: 503'],
    });
    expect(progressOf(new Drive({ stills: 1 }, null).m, 'c', 0).notifications).toBeUndefined();
  });
});

describe('notices: who is sent what', () => {
  it.each([
    ['every notice', null, [EVERY_NOTICE, ENDS_ONLY]],
    ['the campaign’s end', ['campaign.completed'], [EVERY_NOTICE, ENDS_ONLY]],
    ['other notices only', ['review.awaiting'], [EVERY_NOTICE]],
  ] as const)(
    'a completed campaign is told to the targets that want it: one wanting %s',
    (_, events, told) => {
      const other = { ...ENDS_ONLY, events };
      const drive = new Drive({ stills: 1 }, [EVERY_NOTICE, other]).settle();
      const expected = told.map((target) => (target === ENDS_ONLY ? other : target));
      expect(drive.notices.map((notice) => notice.targets)).toEqual([expected]);
    },
  );
});

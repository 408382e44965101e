/**
 * The counts and money a campaign publishes, driven through the reducer (workflows/engine/step.ts)
 * as the executor would drive it: at every event, no step counts more jobs than it planned, no
 * count is negative, and the steps' spend adds up to the campaign's. A retake is an extra take of
 * a job, never a second job.
 */

import { describe, expect, it } from 'vitest';
import type { CreateOutcome, FinishOutcome } from '../../contract/activities.ts';
import type { CampaignProgress, JobRef } from '../../contract/campaign.ts';
import type { ReviewAction } from '../../contract/review.ts';
import type { Effect } from '../../workflows/engine/effects.ts';
import type { CampaignEvent } from '../../workflows/engine/events.ts';
import type { Model } from '../../workflows/engine/model.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';
import { step } from '../../workflows/engine/step.ts';
import { CLIP_USD, createdOutcome, jobsOf, modelOf, type Shape, STILL_USD, tick } from './step-fixture.ts';

const shape: Shape = { stills: 2, chained: true, reviewed: true, retries: 0 };
const plan = jobsOf(shape);

/** What the service answers, per job name: its takes' outcomes in order (default: each succeeds at its price). */
interface Service {
  readonly takes?: Record<string, FinishOutcome[]>;
  /** Jobs found recorded by an earlier run, with the decision recorded for them. */
  readonly recorded?: Record<string, { action?: ReviewAction }>;
}

const paid = (usd: number): FinishOutcome => ({ kind: 'succeeded', creditsUsed: usd, file: 'f' });
const failed = (usd: number): FinishOutcome => ({ kind: 'failed', creditsUsed: usd, message: 'nsfw' });

/** A driver standing in for the executor: answers every effect until the campaign waits for a person. */
class Drive {
  readonly m: Model = modelOf(shape);
  private now = 0;
  private readonly takes: Map<string, FinishOutcome[]>;
  private readonly recorded: Map<string, { action?: ReviewAction }>;
  /** Every progress seen, one per event. */
  readonly seen: CampaignProgress[] = [];

  constructor(service: Service) {
    this.takes = new Map(Object.entries(service.takes ?? {}).map(([name, list]) => [name, [...list]]));
    this.recorded = new Map(Object.entries(service.recorded ?? {}));
  }

  settle(): this {
    for (let round = 0; round < 100; round++) {
      const effects = this.send(tick);
      if (effects.some((e) => e.kind === 'complete')) return this;
      const wait = effects.find((e) => e.kind === 'wait');
      if (wait?.kind === 'wait' && wait.ms === null && effects.length <= 2) return this;
      if (wait?.kind === 'wait' && wait.ms !== null)
        this.send({ kind: 'slept', from: this.m.clock.at, ms: wait.ms });
    }
    throw new Error('the campaign never settled');
  }

  decide(name: string, action: ReviewAction): this {
    const job = plan.find((j) => j.name === name)!;
    this.send({ kind: 'review', decisions: [{ key: job.key, action }], at: 'T' });
    return this.settle();
  }

  get progress(): CampaignProgress {
    return Progress.campaignProgress(this.m.jobs, 'c', this.now);
  }

  private send(event: CampaignEvent): Effect[] {
    const effects = step(this.m, event);
    this.seen.push(this.progress);
    for (const effect of effects) this.answer(effect);
    return effects;
  }

  private answer(effect: Effect): void {
    const slice = (from: number, count: number) => plan.slice(from, from + count);
    if (effect.kind === 'load-jobs')
      this.send({ kind: 'jobs-loaded', jobs: slice(effect.from, effect.count) });
    if (effect.kind === 'read-released')
      this.send({ kind: 'released', span: effect.span, jobs: slice(effect.span.from, effect.span.count) });
    if (effect.kind === 'create')
      this.send({
        kind: 'created',
        batch: effect.batch,
        outcomes: effect.batch.map(({ job }) => this.create(job)),
      });
    if (effect.kind === 'finish-batch') {
      this.now += 1_000;
      const results = effect.flights.map(({ pending }) => ({
        kind: 'finished' as const,
        outcome: this.takes.get(pending.job.name)?.shift() ?? paid(pending.job.usd ?? 0),
        heir: null,
        waitedMs: 1_000,
        at: this.now,
      }));
      this.send({ kind: 'batch-finished', flights: effect.flights, results });
    }
  }

  private create(job: JobRef): CreateOutcome {
    const recorded = this.recorded.get(job.name);
    if (!recorded) return createdOutcome(job.i, this.now);
    this.recorded.delete(job.name);
    return {
      kind: 'cached',
      i: job.i,
      take: 0,
      ...(recorded.action ? { verdict: { action: recorded.action } } : {}),
    };
  }
}

/** Every snapshot: each step within its plan, nothing negative, step spend summing to the total. */
function expectTrue(seen: readonly CampaignProgress[]): void {
  for (const p of seen) {
    for (const s of p.steps) {
      const counted = s.succeeded + s.cached + s.failed + s.skipped + s.canceled + s.running + s.waiting;
      expect(counted, `${s.id}: ${JSON.stringify(s)}`).toBeLessThanOrEqual(s.planned);
      for (const value of Object.values(s))
        if (typeof value === 'number') expect(value).toBeGreaterThanOrEqual(0);
    }
    expect(p.steps.reduce((sum, s) => sum + (s.spent ?? 0), 0)).toBe(p.spent);
  }
}

type Row = [
  string,
  Service,
  [string, ReviewAction][],
  { still: Partial<CampaignProgress['steps'][number]>; clip: Partial<CampaignProgress['steps'][number]> },
];

const rows: Row[] = [
  [
    'both stills approved on their first take',
    {},
    [
      ['still-0', 'approve'],
      ['still-1', 'approve'],
    ],
    {
      still: { succeeded: 2, regenerated: 0, spent: 2 * STILL_USD },
      clip: { succeeded: 2, spent: 2 * CLIP_USD },
    },
  ],
  [
    'two retakes then approved, the other rejected: an extra take is a retake, and it was paid',
    {},
    [
      ['still-0', 'regenerate'],
      ['still-0', 'regenerate'],
      ['still-0', 'approve'],
      ['still-1', 'reject'],
    ],
    {
      still: { succeeded: 2, regenerated: 2, approved: 1, rejected: 1, spent: 4 * STILL_USD },
      clip: { succeeded: 1, skipped: 1, spent: CLIP_USD },
    },
  ],
  [
    'a retake the service fails for good: the job has no output, its failed take paid',
    { takes: { 'still-0': [paid(STILL_USD), failed(1_000)] } },
    [
      ['still-0', 'regenerate'],
      ['still-1', 'approve'],
    ],
    {
      still: { succeeded: 1, failed: 1, regenerated: 1, spent: 2 * STILL_USD + 1_000 },
      clip: { succeeded: 1, skipped: 1, spent: CLIP_USD },
    },
  ],
  [
    'a take recorded by an earlier run retaken in this one: it leaves cached for succeeded',
    { recorded: { 'still-0': {}, 'still-1': { action: 'regenerate' } } },
    [
      ['still-0', 'regenerate'],
      ['still-0', 'approve'],
      ['still-1', 'approve'],
    ],
    {
      still: { succeeded: 2, cached: 0, regenerated: 2, spent: 2 * STILL_USD },
      clip: { succeeded: 2, spent: 2 * CLIP_USD },
    },
  ],
];

describe('step: counts and money stay true through retakes', () => {
  it.each(rows)('%s', (_, service, decisions, expected) => {
    const drive = new Drive(service).settle();
    for (const [name, action] of decisions) drive.decide(name, action);
    const [still, clip] = drive.progress.steps;
    expect(drive.progress.outcome).toBe('completed');
    expect(still).toMatchObject(expected.still);
    expect(clip).toMatchObject(expected.clip);
    expectTrue(drive.seen);
  });
});

/**
 * The live model behind the review page: pages learn only the items (and derived files) that
 * changed since they looked, and the campaign is read at most once per interval (less often when
 * reading is slow).
 */
import { describe, expect, it } from 'vitest';
import type { DerivativeRecord } from '../../records/derivatives.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
import { LiveModel } from '../../review/live.ts';
import type { ModelSources } from '../../review/model.ts';
import { running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const plan = stillsAndClips();

function setup(costMs = 0) {
  let clock = 0;
  let reads = 0;
  const entries = new Map<string, ManifestEntry>();
  const live = new LiveModel(
    async (): Promise<ModelSources> => {
      reads++;
      clock += costMs;
      return {
        plan,
        reviewedSteps: new Set(['still']),
        entries: new Map(entries),
        decisions: new Map(),
        progress: running(plan),
      };
    },
    1000,
    () => clock,
  );
  return {
    live,
    entries,
    reads: () => reads,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('the live model', () => {
  it('tells a page only what changed since its generation', async () => {
    const { live, entries, advance } = setup();
    const first = await live.snapshot();
    expect(first.generation).toBe(0);
    expect((await live.changesSince(0)).items).toEqual([]);

    const [still] = plan.jobs;
    entries.set(still!.key, saved(still!));
    advance(1000);
    const changes = await live.changesSince(first.generation);
    expect(changes.generation).toBe(1);
    expect(changes.items.map((item) => [item.name, item.state])).toEqual([['still-shoe-white', 'awaiting']]);
    advance(1000);
    expect((await live.changesSince(changes.generation)).items).toEqual([]);
  });

  it('tells a page of a derived file made since it looked', async () => {
    const [still] = plan.jobs;
    const derivative = {
      step: 'feed',
      key: 'f'.repeat(32),
      file: 'shoe-white',
      operations: [],
      output: 'image',
    } as const;
    const derived: DerivativeRecord[] = [];
    let clock = 0;
    const entries = new Map([[still!.key, saved(still!)]]);
    const withFeed = {
      ...plan,
      jobs: plan.jobs.map((job) => (job === still ? { ...job, derivatives: [derivative] } : job)),
      deriveSteps: [{ id: 'feed', from: 'still', output: 'image' as const, derivativeCount: 1 }],
    };
    const live = new LiveModel(
      async (): Promise<ModelSources> => ({
        plan: withFeed,
        reviewedSteps: new Set(['still']),
        entries,
        decisions: new Map(),
        progress: running(plan),
        derivatives: new Map(derived.map((record) => [record.key, record])),
      }),
      1000,
      () => clock,
    );
    const first = await live.snapshot();
    expect((await live.changesSince(first.generation)).derivatives).toEqual([]);
    derived.push({
      key: derivative.key,
      step: 'feed',
      parent: {
        key: still!.key,
        prediction_id: null,
        file: entries.get(still!.key)!.file,
        sha256: '0'.repeat(64),
      },
      operations: [],
      tools: 'sharp',
      at: '2026-12-01T00:00:00Z',
      state: 'made',
      file: 'feed/shoe-white.jpg',
      sha256: '0'.repeat(64),
      bytes: 2_000,
      format: 'jpg',
      width: 10,
      height: 10,
      duration_s: null,
    });
    clock += 1000;
    const changes = await live.changesSince(first.generation);
    expect(changes.items).toEqual([]);
    expect(changes.derivatives.map((card) => [card.file, card.state])).toEqual([
      ['feed/shoe-white.jpg', 'made'],
    ]);
  });

  it('reads once per interval however many pages ask, and at once after a decision', async () => {
    const { live, reads, advance } = setup();
    await Promise.all([live.current(), live.current(), live.changesSince(0)]);
    advance(999);
    await live.current();
    expect(reads()).toBe(1);
    live.invalidate();
    await live.current();
    expect(reads()).toBe(2);
    advance(1000);
    await live.current();
    expect(reads()).toBe(3);
  });

  it('reads a campaign that is slow to read less often: at most a fifth of the time', async () => {
    const { live, reads, advance } = setup(400);
    await live.current();
    advance(1500);
    await live.current();
    expect(reads()).toBe(1);
    advance(600); // 2 s after the last reading began
    await live.current();
    expect(reads()).toBe(2);
  });
});

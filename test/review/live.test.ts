/**
 * The live model behind the review page: pages learn only the items that changed since they
 * looked, and the campaign is read at most once per interval (less often when reading is slow).
 */
import { describe, expect, it } from 'vitest';
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

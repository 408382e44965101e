/**
 * Which search attributes a campaign writes when it publishes (workflows/search-attributes.ts,
 * PublishedAttributes), as a table: only what changed, and MediaflowFaults only beside another
 * change, so no run recorded before it gains an upsert on replay.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { noCounts } from '../../contract/no-counts.ts';
import type { CampaignProgress, StepProgress } from '../../contract/progress.ts';
import { faultsOf, PublishedAttributes } from '../../workflows/runtime/search-attributes.ts';
import { progressWith } from '../helpers/progress.ts';

const step = { id: 'still', model: 'I4', planned: 4, running: 0, waiting: 0, ...noCounts() } as const;

function progress(counts: Partial<StepProgress> = {}, more: Partial<CampaignProgress> = {}) {
  return progressWith([{ ...step, ...counts }], more);
}

const written = (pairs: readonly SearchAttributePair[]) =>
  Object.fromEntries(pairs.map(({ key, value }) => [key.name, value]));

describe('the search attributes a campaign writes', () => {
  it('names each fault met and its count, and an outage while it pauses', () => {
    expect(faultsOf(progress({}))).toEqual([]);
    expect(faultsOf(progress({ refused: 2, failed: 1, download_failed: 1, links_refreshed: 3 }))).toEqual([
      'refused',
      'refused:2',
      'download_failed',
      'download_failed:1',
      'links_refreshed',
      'links_refreshed:3',
    ]);
    const paused = { kind: 'service_unavailable', reason: '503', since: 0, until: 1 } as const;
    expect(faultsOf(progress({}, { paused }))).toEqual(['service_unavailable']);
  });

  it.each<[string, boolean, Partial<CampaignProgress['steps'][number]>, Record<string, unknown>]>([
    ['nothing changed: nothing written', true, {}, {}],
    ['a fault alone is not written (no new upsert)', true, { links_refreshed: 1 }, {}],
    [
      'a fault beside another change is written with it',
      true,
      { refused: 1 },
      { MediaflowJobsFailed: 1, MediaflowFaults: ['refused', 'refused:1'] },
    ],
    [
      'a campaign started before MediaflowFaults never writes it',
      false,
      { refused: 1 },
      { MediaflowJobsFailed: 1 },
    ],
  ])('%s', (_, faults, counts, expected) => {
    const published = new PublishedAttributes([], faults);
    published.changed(progress({}));
    expect(written(published.changed(progress(counts)))).toEqual(expected);
  });
});

/**
 * The campaign's progress in its memo, and the search attributes that change with it: clients
 * read both from the server, never with a query (docs/engine.md, "Progress without queries").
 * When to publish is decide.ts's rule (`mayPublish`); this is the effect.
 */
import { upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import type { CampaignState } from './campaign-state.ts';
import type { CampaignClock } from './clock.ts';
import { mayPublish } from './decide.ts';
import type { RunState } from './run-state.ts';
import { type PublishedAttributes, progressAttributes } from './search-attributes.ts';

/** Campaign-clock time between two search-attribute updates while it runs (each is a history event). */
const INDEX_EVERY_MS = 10_000;

export interface Publishing {
  readonly campaign: string;
  readonly state: CampaignState;
  readonly clock: CampaignClock;
  readonly run: RunState;
  /** The search attributes published so far; null when the campaign keeps none. */
  readonly indexed: PublishedAttributes | null;
}

/** `publish(idleFor, final)`: the memo's progress and changed search attributes when due (`final`: always). */
export function publisher({ campaign, state, clock, run, indexed }: Publishing) {
  return function publish(idleFor: number | null, final = false): void {
    const due = mayPublish({
      sinceMs: clock.now() - run.publishedAt,
      unpublished: run.reports - run.publishedReports,
      idleFor,
      reportGapMs: state.expectedReportGapMs(),
    });
    if (!final && !due) return;
    run.publishedAt = clock.now();
    run.publishedReports = run.reports;
    const progress = state.progress(campaign, clock.now());
    upsertMemo({ progress });
    // Counts and money for searching need not move every second: every INDEX_EVERY_MS, and last.
    if (!indexed || (!final && clock.now() - run.indexedAt < INDEX_EVERY_MS)) return;
    const changed = indexed.changed(progressAttributes(progress));
    if (changed.length > 0) upsertSearchAttributes(changed);
    run.indexedAt = clock.now();
  };
}

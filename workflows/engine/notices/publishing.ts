/**
 * When the campaign publishes its progress (the memo, and the search attributes that changed):
 * about once a second while reports keep coming, before a long wait with news unpublished
 * (pacing/decide.ts, mayPublish), at the end, and on the wall-clock pulse when nothing was
 * published for a whole pulse. The runtime writes what these effects ask (runtime/executor.ts).
 */
import type { Effect } from '../effects.ts';
import { expectedReportGapMs } from '../jobs/occupancy.ts';
import type { Model } from '../model.ts';
import { slept } from '../pacing/clock.ts';
import { mayPublish } from '../pacing/decide.ts';

/** Campaign-clock time between two search-attribute updates while it runs (each is a history event). */
const INDEX_EVERY_MS = 10_000;

/**
 * The memo's progress (and the search attributes, every INDEX_EVERY_MS) when due before the loop
 * waits `idleFor` (null: until a report), or always when `final`.
 */
export function publishing(m: Model, idleFor: number | null, final = false): Effect[] {
  const { run, clock, jobs } = m;
  const now = clock.at;
  const due = mayPublish({
    sinceMs: now - (run.publishedAt ?? Number.NEGATIVE_INFINITY),
    unpublished: run.reports - run.publishedReports,
    idleFor,
    reportGapMs: expectedReportGapMs(jobs),
  });
  if (!final && !due) return [];
  run.publishedAt = now;
  run.publishedReports = run.reports;
  // Counts and money for searching need not move every second: every INDEX_EVERY_MS, and last.
  const indexed =
    m.searchable && (final || now - (run.indexedAt ?? Number.NEGATIVE_INFINITY) >= INDEX_EVERY_MS);
  if (indexed) run.indexedAt = now;
  return [{ kind: 'publish', indexed }];
}

/**
 * The wall-clock pulse fired (runtime/pulse.ts): the clock moves by what it slept, and progress
 * is published when nothing was for a whole pulse, even with no new report (its time left, and
 * the search attributes, were frozen while an activity retried). A busy campaign, publishing
 * about every second anyway, adds nothing.
 */
export function pulsed(m: Model, from: number, ms: number): Effect[] {
  const { run, clock } = m;
  slept(clock, from, ms);
  if (clock.at - (run.publishedAt ?? Number.NEGATIVE_INFINITY) < ms) return [];
  return publishing(m, null, true);
}

/**
 * The custom search attributes a campaign carries, so operators find campaigns with Temporal's
 * own tools (`temporal workflow list --query 'MediaflowOutcome="canceled"'`, the Web UI's filter)
 * without mediaflow. One list, read by the client (initial values at start, whether the namespace
 * has them), the workflow (updates as the campaign moves), the embedded dev server (registration)
 * and docs/deployment.md (docker-compose.yml and Temporal Cloud register them by hand).
 *
 * Plain data and pure functions: the workflow bundle imports it.
 */
import { defineSearchAttributeKey, type SearchAttributePair, SearchAttributeType } from '@temporalio/common';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { ENGINE } from '../../contract/engine.ts';
import { NAMED_COUNTS } from '../engine/jobs/tally.ts';

export const CAMPAIGN_KEY = defineSearchAttributeKey('MediaflowCampaign', SearchAttributeType.KEYWORD);
/** running, then the outcome: completed, budget_reached, canceled, disk_full, … (CampaignOutcome). */
export const OUTCOME_KEY = defineSearchAttributeKey('MediaflowOutcome', SearchAttributeType.KEYWORD);
/** The stored plan's digest (`<output>/.mediaflow/plans/<digest>.json`): which version of the spec. */
export const SPEC_DIGEST_KEY = defineSearchAttributeKey('MediaflowSpecDigest', SearchAttributeType.KEYWORD);
export const JOBS_PLANNED_KEY = defineSearchAttributeKey('MediaflowJobsPlanned', SearchAttributeType.INT);
/** Jobs whose file is there: generated in this campaign or found from an earlier run. */
export const JOBS_DONE_KEY = defineSearchAttributeKey('MediaflowJobsDone', SearchAttributeType.INT);
/** Jobs that ended without a file: failed, refused, timed out, canceled, or skipped below a failure (not below a rejected take). */
export const JOBS_FAILED_KEY = defineSearchAttributeKey('MediaflowJobsFailed', SearchAttributeType.INT);
export const SPENT_USD_KEY = defineSearchAttributeKey('MediaflowSpentUsd', SearchAttributeType.DOUBLE);
/** Absent when the spec has no budget. */
export const BUDGET_USD_KEY = defineSearchAttributeKey('MediaflowBudgetUsd', SearchAttributeType.DOUBLE);
/**
 * The engine generation that started the run (contract/engine.ts), as text: which campaigns an
 * upgrade continues. A keyword, not an integer: SQLite visibility (the dev server) allows three
 * integer attributes per namespace, and the job counts have them.
 */
export const ENGINE_KEY = defineSearchAttributeKey('MediaflowEngine', SearchAttributeType.KEYWORD);
/**
 * The faults the campaign met, for finding them across a fleet: each kind once
 * (`MediaflowFaults = 'download_failed'`) and its count beside it (`download_failed:3`), plus
 * `service_unavailable` while an outage pauses it (a full disk, a revoked key or an empty balance
 * end the campaign: `MediaflowOutcome` says those). A keyword list, for the same reason as
 * MediaflowEngine: no integer attribute is left. Registered after the others, so a campaign
 * writes it only when its start found it registered (CampaignInput.searchFaults).
 */
export const FAULTS_KEY = defineSearchAttributeKey('MediaflowFaults', SearchAttributeType.KEYWORD_LIST);

/** Every key, in the order operators read them. */
export const SEARCH_ATTRIBUTE_KEYS = [
  CAMPAIGN_KEY,
  OUTCOME_KEY,
  SPEC_DIGEST_KEY,
  JOBS_PLANNED_KEY,
  JOBS_DONE_KEY,
  JOBS_FAILED_KEY,
  SPENT_USD_KEY,
  BUDGET_USD_KEY,
  ENGINE_KEY,
  FAULTS_KEY,
] as const;

/** The type as the `temporal` CLI and Temporal Cloud's `tcld` spell it (Keyword, Int, Double). */
export function cliTypeOf(type: SearchAttributeType): string {
  return {
    KEYWORD: 'Keyword',
    INT: 'Int',
    DOUBLE: 'Double',
    TEXT: 'Text',
    BOOL: 'Bool',
    DATETIME: 'Datetime',
    KEYWORD_LIST: 'KeywordList',
  }[type];
}

/** Integer micro-dollars (api/money.ts) as dollars, for people reading the UI and queries. */
function dollars(micros: number): number {
  return micros / 1_000_000;
}

/** What the campaign's progress says, in the attributes that change while it runs. */
export function progressAttributes(progress: CampaignProgress): SearchAttributePair[] {
  let done = 0;
  let failed = 0;
  let skipped = 0;
  for (const step of progress.steps) {
    done += step.succeeded + step.cached;
    failed += step.failed + step.canceled + (step.refused ?? 0) + (step.timed_out ?? 0);
    skipped += step.skipped;
  }
  // A job is skipped below a failure or below a take a reviewer rejected: without any failure,
  // every skip is a review's, and a reviewed campaign that did all it was asked is not partial.
  if (failed > 0) failed += skipped;
  return [
    { key: OUTCOME_KEY, value: progress.outcome },
    { key: JOBS_DONE_KEY, value: done },
    { key: JOBS_FAILED_KEY, value: failed },
    { key: SPENT_USD_KEY, value: dollars(progress.spent) },
  ];
}

/** MediaflowFaults' value: each fault met, then its count (`refused`, `refused:2`). */
export function faultsOf(progress: CampaignProgress): string[] {
  const faults: string[] = [];
  for (const kind of NAMED_COUNTS) {
    const count = progress.steps.reduce((n, step) => n + (step[kind] ?? 0), 0);
    if (count > 0) faults.push(kind, `${kind}:${count}`);
  }
  if (progress.paused) faults.push(progress.paused.kind);
  return faults;
}

/** The attributes a campaign starts with (client start option `typedSearchAttributes`). */
export function startAttributes(
  campaign: string,
  digest: string,
  jobCount: number,
  budget: number | null,
  progress: CampaignProgress,
): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: CAMPAIGN_KEY, value: campaign },
    { key: SPEC_DIGEST_KEY, value: digest },
    { key: JOBS_PLANNED_KEY, value: jobCount },
    { key: ENGINE_KEY, value: String(ENGINE) },
    ...progressAttributes(progress),
  ];
  if (budget !== null) pairs.push({ key: BUDGET_USD_KEY, value: dollars(budget) });
  return pairs;
}

/**
 * Remembers what was last written, so the workflow upserts only the attributes that changed (each
 * upsert is a history event and a visibility write).
 */
export class PublishedAttributes {
  private readonly last = new Map<string, string>();
  private readonly faults: boolean;

  /**
   * `current`: what the run starts with (the start's values, or those carried by continue-as-new);
   * `faults`: whether it writes MediaflowFaults too.
   */
  constructor(current: readonly SearchAttributePair[], faults = false) {
    // No faults is what a campaign starts with, so none is never written.
    this.last.set(FAULTS_KEY.name, '[]');
    for (const { key, value } of current) this.last.set(key.name, JSON.stringify(value));
    this.faults = faults;
  }

  /**
   * The attributes of `progress` whose value differs from the last written, now marked written.
   * MediaflowFaults rides only with another change: on its own it would add an upsert (a command)
   * where runs recorded before it had none, and their replay would fail.
   */
  changed(progress: CampaignProgress): SearchAttributePair[] {
    const changed = this.fresh(progressAttributes(progress));
    if (changed.length === 0 || !this.faults) return changed;
    return [...changed, ...this.fresh([{ key: FAULTS_KEY, value: faultsOf(progress) }])];
  }

  private fresh(pairs: readonly SearchAttributePair[]): SearchAttributePair[] {
    const changed = pairs.filter(({ key, value }) => this.last.get(key.name) !== JSON.stringify(value));
    for (const { key, value } of changed) this.last.set(key.name, JSON.stringify(value));
    return changed;
  }
}

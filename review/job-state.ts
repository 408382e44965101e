/**
 * The state a review page shows for one job: the one rule of the page, from what the manifest,
 * the decisions and the campaign's progress say of it. Pure; tested as a table
 * (test/review/model.test.ts).
 */

import type { DecisionRecord, ReviewAction } from '../contract/review.ts';
import type { ManifestEntry } from '../records/manifest.ts';

/**
 * generating: not saved yet (queued or in flight); awaiting: saved, waiting for a decision;
 * regenerating: a new take was asked for and is not saved yet; done: saved, in a step nobody
 * reviews; skipped: an ancestor was rejected, failed or skipped, so it never runs; waiting: its
 * parent is not saved (or not approved) yet; unrun: the campaign never ran on this Temporal (a
 * report made from a spec); refused: the service's content policy refused it and its step's
 * `on_refusal` has nothing more to try.
 */
export type ItemState =
  | 'generating'
  | 'awaiting'
  | 'approved'
  | 'rejected'
  | 'regenerating'
  | 'failed'
  | 'done'
  | 'skipped'
  | 'waiting'
  | 'unrun'
  | 'refused';

const AFTER: Record<ReviewAction, ItemState> = {
  approve: 'approved',
  reject: 'rejected',
  regenerate: 'regenerating',
};

export interface JobFacts {
  readonly reviewed: boolean;
  readonly entry: ManifestEntry | undefined;
  readonly decision: DecisionRecord | undefined;
  /** The parent's state, or null for a job of a first step. */
  readonly parent: ItemState | null;
  readonly failed: boolean;
  /** Refused by the content policy, with no further take to come (model.ts decides). */
  readonly refused?: boolean;
  /** ended: nothing not saved will be saved; unknown: Temporal has no such campaign. */
  readonly campaign: 'running' | 'ended' | 'unknown';
}

/** What a job's state is: the one rule of the page, tested as a table. */
export function stateOf({
  reviewed,
  entry,
  decision,
  parent,
  failed,
  refused,
  campaign,
}: JobFacts): ItemState {
  if (parent === 'rejected' || parent === 'failed' || parent === 'skipped' || parent === 'refused')
    return 'skipped';
  const ended = campaign !== 'running';
  const take = entry?.regenerations ?? -1;
  // A decision about the saved take (or a later one) is the latest word; one about an older take
  // was a regeneration that this entry answers.
  if (reviewed && decision && decision.take >= take) {
    if (decision.action !== 'regenerate' || !ended) return AFTER[decision.action];
    return entry ? 'awaiting' : 'failed';
  }
  if (entry) return reviewed ? 'awaiting' : 'done';
  if (refused) return 'refused';
  if (failed || campaign === 'ended') return 'failed';
  if (campaign === 'unknown') return 'unrun';
  // A child of a job not saved or not decided yet is neither made nor refused.
  if (parent !== null && parent !== 'approved' && parent !== 'done') return 'waiting';
  return 'generating';
}

/**
 * Everything one workflow run of a campaign knows, in one plain object that only the reducer
 * (step.ts) changes: the jobs (campaign-state.ts: window, slots, money, tally, review gates, caps;
 * moved by job-moves.ts), what the run has under way (run-state.ts), the create pacer and the
 * campaign clock. No class, Map, Set or closure anywhere in it: it goes through JSON whole, and a
 * copy decides as the original would (test/engine/step-properties.test.ts). The executor
 * (workflows/campaign.ts) reads it to carry out effects, and never writes it.
 */
import type { CampaignState } from '../campaign-state.ts';
import type { Clock } from '../clock.ts';
import type { Bucket } from '../pacer.ts';
import type { RunState } from '../run-state.ts';
import type { Notices } from '../state/notices.ts';

/** The campaign's part in its key's rate governor: what it told the governor of its need. */
export interface Governed {
  /** The campaign's own concurrency: with its latency, the most creates a second it can use. */
  readonly concurrency: number;
  /** The rate need last reported (null: none yet). */
  reportedNeed: number | null;
}

export interface Model {
  readonly jobs: CampaignState;
  readonly run: RunState;
  readonly pacer: Bucket;
  readonly clock: Clock;
  /** Null when the campaign shares its key through no governor. */
  readonly governed: Governed | null;
  /** The history length at which the run drains for continue-as-new (decide.ts, rollOverAt). */
  readonly rollOverLimit: number;
  /** The campaign keeps search attributes (the namespace has them registered). */
  readonly searchable: boolean;
  /** Absent when the campaign has no `notify` targets: no notice is decided (reducer/notify.ts). */
  readonly notices?: Notices;
}

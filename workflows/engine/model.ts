/**
 * Everything one workflow run of a campaign knows, in one plain object that only `step` changes
 * (step.ts): the jobs and their money, review gates and caps (CampaignState), what the run has
 * under way (pacing/run-state.ts), the create pacer and the campaign clock. No class, Map, Set or
 * closure anywhere in it: it goes through JSON whole, and a copy decides as the original would
 * (test/engine/step-properties.test.ts). The runtime (workflows/runtime/) reads it to carry out
 * effects, and never writes it.
 *
 * The shared model of the engine's concerns: each concern folder imports its types from here,
 * and the state parts it is made of are each a concern's own.
 */
import type { ServiceLimits, StepInfo } from '../../contract/campaign.ts';
import type { PaceState } from './jobs/pace.ts';
import type { SlotsState } from './jobs/slots.ts';
import type { TallyState } from './jobs/tally.ts';
import type { WindowState } from './jobs/window.ts';
import type { AllowanceState } from './money/allowance.ts';
import type { BudgetState } from './money/budget.ts';
import type { StopState } from './money/stop.ts';
import type { Notices } from './notices/notices.ts';
import type { Clock } from './pacing/clock.ts';
import type { Bucket } from './pacing/pacer.ts';
import type { RunState } from './pacing/run-state.ts';
import type { ReviewsState } from './reviews/reviews.ts';

/**
 * The campaign's scheduling state, carried as it is in the model: the window over the plan
 * (jobs/window.ts), the slots held at the service (jobs/slots.ts), the money (money/budget.ts),
 * why submission stopped (money/stop.ts), the tally of outcomes (jobs/tally.ts), the review gates
 * (reviews/reviews.ts) and the campaign's part of its key's spend caps (money/allowance.ts).
 */
export interface CampaignState {
  readonly steps: readonly StepInfo[];
  readonly jobCount: number;
  /** The campaign's own limit on predictions in flight (within the service's: maxInFlight). */
  readonly concurrency: number;
  /** Steps below each step (jobs/selection.ts, stepHeights); all 0 keeps the plan's order. */
  readonly heights: readonly number[];
  /** Parents go first (some step has steps below it and the campaign orders by chains). */
  readonly chainsFirst: boolean;
  readonly window: WindowState;
  readonly slots: SlotsState;
  readonly tally: TallyState;
  /** How fast it works, for the ETA (jobs/pace.ts). */
  readonly pace: PaceState;
  readonly budget: BudgetState;
  readonly halt: StopState;
  readonly reviews: ReviewsState;
  /** The campaign's part of its key's spend caps; null: uncapped. */
  readonly allowance: AllowanceState | null;
  limits: ServiceLimits;
  readonly startedAt: number;
  readonly runs: number;
}

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
  /** The history length at which the run drains for continue-as-new (pacing/decide.ts, rollOverAt). */
  readonly rollOverLimit: number;
  /** The campaign keeps search attributes (the namespace has them registered). */
  readonly searchable: boolean;
  /** Absent when the campaign has no `notify` targets: no notice is decided (notices/notify.ts). */
  readonly notices?: Notices;
}

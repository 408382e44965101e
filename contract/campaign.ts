/**
 * What the campaign workflow takes, carries across continue-as-new and reports. Neutral ground:
 * the workflow, its activities, the CLI and the tests import it, and it imports nothing that runs.
 * Everything is compact and JSON-safe, and none of it carries a secret: the API key lives only in
 * the worker's environment (ARCHITECTURE.md, decision 7).
 */

import type { ModelLabel } from '../api/catalogue/models.ts';
import type { Micros } from '../api/money.ts';
import type { RefusalRule } from '../plan/refusal.ts';
import type { ReviewRule } from '../plan/review.ts';
import type { CarriedAllowance } from './caps.ts';
import type { NotifySettings } from './notify.ts';
import type { CampaignOutcome, Failure, StepCounts } from './progress.ts';

export type { CampaignOutcome, CampaignProgress, Failure, StepCounts, StepProgress } from './progress.ts';

/** Where a stored plan lives: content-addressed, so a workflow always reads the plan it started with. */
export interface PlanRef {
  readonly file: string;
  readonly digest: string;
  readonly jobCount: number;
}

export interface StepInfo {
  readonly id: string;
  readonly model: ModelLabel;
  readonly retries: number;
  readonly concurrency: number | null;
  readonly jobCount: number;
  /**
   * Index of the step whose outputs this step's jobs take (`from:`); absent for a first step, and
   * in inputs recorded before campaigns ordered jobs by the chains below them (selection.ts).
   */
  readonly from?: number;
  /** The step's review gate (docs/spec-format.md); absent: none. */
  readonly review?: ReviewRule;
  /** What a content refusal does (plan/refusal.ts); absent: skip. */
  readonly onRefusal?: RefusalRule;
  /** How long a prediction of this step may take, ms; absent: no deadline. */
  readonly timeoutMs?: number;
  /**
   * The reviewed derive steps that make files from this step's outputs, in the plan's order
   * (docs/review.md, "Derivatives"); absent: none.
   */
  readonly derived?: readonly DerivedGate[];
}

/** A derive step with a review gate: each file it makes waits for a decision. */
export interface DerivedGate {
  readonly id: string;
  readonly review: ReviewRule;
}

/** The few facts about a job that scheduling needs; the input itself stays in the plan file. */
export interface JobRef {
  /** Index in the plan. */
  readonly i: number;
  readonly key: string;
  /** The job's name, for messages. */
  readonly name: string;
  readonly parent: string | null;
  /** Index into CampaignInput.steps. */
  readonly step: number;
  /** Price committed while the prediction runs (the service's estimate where the catalogue has none). */
  readonly usd: Micros;
  /**
   * Jobs of reviewed steps with descendants only: the plan index just past them (depth first, a
   * job's descendants are the indexes between it and `end`) and their total price.
   */
  readonly end?: number;
  readonly belowUsd?: Micros;
  /** Steps with `on_refusal: { fallback }` only: the job's price on the fallback model. */
  readonly fallbackUsd?: Micros;
  /** Steps with reviewed derive steps only: the key of its derivative of each (StepInfo.derived). */
  readonly derived?: readonly string[];
}

/** A job waiting to be submitted, with the number of regenerations already spent on it. */
export interface PendingJob {
  readonly job: JobRef;
  readonly regen: number;
  /** A new take a reviewer asked for: it replaces the recorded output of the take before. */
  readonly retake?: true;
  /** The reviewer's new prompt for this take (review.edit_prompt). */
  readonly prompt?: string;
  /** The regeneration the failure retries count from (a retake starts them again); absent: 0. */
  readonly retriesFrom?: number;
  /** Takes already refused by the service's content policy (counted against `on_refusal`); absent: 0. */
  readonly refusals?: number;
  /** This take runs on the step's fallback model (`on_refusal: { fallback }`). */
  readonly model?: ModelLabel;
}

export interface ServiceLimits {
  readonly createsPerSecond: number;
  readonly maxInFlight: number;
}

/** A created prediction handed from one workflow run to the next, still being waited on. */
export interface InFlightJob {
  readonly pending: PendingJob;
  readonly predictionId: string;
  /** Worker clock when the create was answered or adopted (see CreateOutcome): about its creation. */
  readonly startedAt: number;
  /** The job its finish creates the moment it ends (see FinishRequest.heir). */
  readonly heir: PendingJob | null;
  /** An earlier run paid for this prediction (see CreateOutcome); absent: not known to be paid. */
  readonly paidBefore?: true;
}

/** State carried across continue-as-new: bounded by the window, never by the campaign's size. */
export interface CarriedState {
  readonly cursor: number;
  readonly waiting: readonly PendingJob[];
  /** Predictions created and not finished: the new run waits for them instead of draining first. */
  readonly inFlight: readonly InFlightJob[];
  readonly counts: readonly StepCounts[];
  readonly spent: Micros;
  /** `spent` per step; absent in runs carried over by versions that kept only the total. */
  readonly stepSpent?: readonly Micros[];
  readonly stopReason: CampaignOutcome | null;
  /** Absent in runs carried over by versions that stopped only for budget, balance or cancel. */
  readonly stopMessage?: string | null;
  readonly recentFailures: readonly Failure[];
  readonly startedAt: number;
  readonly runs: number;
  readonly limits: ServiceLimits;
  readonly latencyMs: number | null;
  /** Per step; absent in runs carried over by versions that measured one mean. */
  readonly stepLatencyMs?: readonly (number | null)[];
  /** How fast the campaign worked, for its ETA (workflows/engine/jobs/pace.ts); absent in older runs. */
  readonly pace?: CarriedPace;
  /** The campaign clock's reading (workflows/engine/pacing/clock.ts). */
  readonly clock: number;
  /** Review gates still open or releasing (workflows/engine/reviews/reviews.ts); absent without gates. */
  readonly reviews?: CarriedReviews;
  /** Notifications so far (workflows/engine/notices/notices.ts); absent without `notify` targets. */
  readonly notices?: CarriedNotices;
  /** The campaign's part of its key's spend caps (docs/caps.md); absent when uncapped. */
  readonly caps?: CarriedAllowance;
}

/** What the ETA carries across continue-as-new (workflows/engine/jobs/pace.ts). */
export interface CarriedPace {
  readonly busyMs: number;
  readonly endedAt: number | null;
  readonly worked: readonly number[];
}

/** What notifying carries across continue-as-new: deliveries so far, and the wave of reviews announced. */
export interface CarriedNotices {
  readonly delivered: number;
  readonly failed: number;
  readonly failures: readonly string[];
  /** review.awaiting notices decided so far: the next one's id. */
  readonly waves: number;
  /** Whether takes awaiting review were announced and still wait (no second notice for them). */
  readonly announced: boolean;
}

/**
 * Review gates carried across continue-as-new, in columns so 10,000 jobs awaiting review stay
 * about 60 bytes each: `keys` is the job keys joined (each is 32 hex characters, plan/keys.ts),
 * `gates` holds GATE_FIELDS numbers per gate in the same order.
 */
export interface CarriedReviews {
  readonly keys: string;
  readonly gates: readonly number[];
  readonly rejected: readonly (readonly [number, number])[];
  readonly releases: readonly Release[];
  readonly approved: readonly number[];
  readonly rejectedCount: readonly number[];
}

/** Plan indexes to read again once a review decided: descendants to run or skip, or a job to retake. */
export interface Release {
  readonly from: number;
  readonly count: number;
  readonly effect: 'admit' | 'skip' | 'retake';
  readonly regen?: number;
  readonly prompt?: string;
  /** A retake of a take found recorded (counted cached) rather than made in this run (succeeded). */
  readonly cached?: true;
}

export interface CampaignInput {
  readonly campaign: string;
  readonly plan: PlanRef;
  readonly steps: readonly StepInfo[];
  readonly outputDir: string;
  readonly budget: Micros | null;
  readonly concurrency: number;
  /**
   * Whether the namespace has mediaflow's search attributes registered (workflows/runtime/search-attributes.ts),
   * checked by the client at start: the workflow upserts them only then, since an upsert of an
   * unregistered attribute fails its workflow task. Absent in campaigns started before them.
   */
  readonly searchAttributes?: boolean;
  /**
   * The namespace has MediaflowFaults too (registered after the others): the workflow writes it
   * only then. Absent in campaigns started before it, which never write it, whatever an upgrade
   * of the server registered since.
   */
  readonly searchFaults?: true;
  /**
   * The rate governor this campaign shares its API key's limits through (workflows/governor/):
   * the key's fingerprint, never the key. Absent in campaigns started before it, or by clients
   * that start no governor: such a campaign paces to the service's whole limits on its own.
   */
  readonly governor?: { readonly key: string };
  /**
   * The key's caps ledger (workflows/caps/, docs/caps.md), by the key's fingerprint: named only
   * when caps were set for the key, so a campaign without caps issues the commands it always did
   * and its history replays.
   */
  readonly caps?: { readonly key: string; readonly priority?: number };
  /** Where notices go (docs/notifications.md); absent: none are sent, and the workflow runs as before. */
  readonly notify?: NotifySettings;
  /** Set by continue-as-new only. */
  readonly carried?: CarriedState;
}

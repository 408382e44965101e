/**
 * What the campaign workflow takes, carries across continue-as-new and reports. Neutral ground:
 * the workflow, its activities, the CLI and the tests import it, and it imports nothing that runs.
 * Everything is compact and JSON-safe, and none of it carries a secret: the API key lives only in
 * the worker's environment (ARCHITECTURE.md, decision 7).
 */

import type { ModelLabel } from '../api/catalogue/models.ts';
import type { Micros } from '../api/money.ts';

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
}

/** A job waiting to be submitted, with the number of regenerations already spent on it. */
export interface PendingJob {
  readonly job: JobRef;
  readonly regen: number;
}

export interface ServiceLimits {
  readonly createsPerSecond: number;
  readonly maxInFlight: number;
}

export interface StepCounts {
  /** Finished in this campaign run (predictions created and downloaded). */
  succeeded: number;
  /** Already in the manifest from an earlier run: nothing created, nothing paid. */
  cached: number;
  failed: number;
  /** Not run because an ancestor failed or was canceled. */
  skipped: number;
  canceled: number;
  /** Predictions created, including regenerations. */
  created: number;
  regenerated: number;
}

export interface Failure {
  readonly job: string;
  readonly step: string;
  readonly message: string;
}

export type CampaignOutcome = 'running' | 'completed' | 'budget_reached' | 'balance_exhausted' | 'canceled';

/** A created prediction handed from one workflow run to the next, still being waited on. */
export interface InFlightJob {
  readonly pending: PendingJob;
  readonly predictionId: string;
  /** Worker clock when the create was answered or adopted (see CreateOutcome): about its creation. */
  readonly startedAt: number;
  /** The job its finish creates the moment it ends (see FinishRequest.heir). */
  readonly heir: PendingJob | null;
}

/** State carried across continue-as-new: bounded by the window, never by the campaign's size. */
export interface CarriedState {
  readonly cursor: number;
  readonly waiting: readonly PendingJob[];
  /** Predictions created and not finished: the new run waits for them instead of draining first. */
  readonly inFlight: readonly InFlightJob[];
  readonly counts: readonly StepCounts[];
  readonly spent: Micros;
  readonly stopReason: CampaignOutcome | null;
  readonly recentFailures: readonly Failure[];
  readonly startedAt: number;
  readonly runs: number;
  readonly limits: ServiceLimits;
  readonly latencyMs: number | null;
  /** The campaign clock's reading (workflows/clock.ts). */
  readonly clock: number;
}

export interface CampaignInput {
  readonly campaign: string;
  readonly plan: PlanRef;
  readonly steps: readonly StepInfo[];
  readonly outputDir: string;
  readonly budget: Micros | null;
  readonly concurrency: number;
  /** Set by continue-as-new only. */
  readonly carried?: CarriedState;
}

export interface StepProgress extends StepCounts {
  readonly id: string;
  readonly model: ModelLabel;
  readonly planned: number;
  readonly running: number;
  readonly waiting: number;
}

export interface CampaignProgress {
  readonly campaign: string;
  readonly outcome: CampaignOutcome;
  readonly steps: readonly StepProgress[];
  readonly spent: Micros;
  /** Price of the predictions in flight: spent + committed never passes the budget. */
  readonly committed: Micros;
  readonly budget: Micros | null;
  readonly recentFailures: readonly Failure[];
  readonly startedAt: number;
  /** Estimated milliseconds to the end, from the completion rate so far; null until known. */
  readonly etaMs: number | null;
  /** Workflow runs so far (continue-as-new count + 1). */
  readonly runs: number;
}

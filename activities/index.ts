/**
 * Every side effect behind the campaign workflow, built by a factory that receives every
 * dependency (the samples-typescript pattern): the service client, the plan cache, the manifests
 * and the download (the CDN side). The worker builds the real ones (worker/create-worker.ts);
 * tests replace any of them. Nothing here is given a secret by the workflow.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import pLimit from 'p-limit';
import { retryRead, type ServiceClient, ServiceError } from '../api/client/index.ts';
import type {
  CreateOutcome,
  CreateRequest,
  FinishBatchItem,
  FinishBatchRequest,
} from '../contract/activities.ts';
import type { JobRef, PlanRef, ServiceLimits } from '../contract/campaign.ts';
import type { DecisionRecord } from '../contract/review.ts';
import type { PlannedJob } from '../plan/types.ts';
import { readClaims } from '../records/claims.ts';
import { ClaimsIndex } from '../records/claims-index.ts';
import { writeDecisions } from '../records/decisions.ts';
import type { Manifests } from '../records/manifests.ts';
import type { LoadedPlan, PlanCache } from '../records/plan-store.ts';
import { isS3Url, type Store } from '../store/index.ts';
import { type CheckAccessInput, checkAccess } from './check-access.ts';
import { createPredictions } from './create/index.ts';
import type { DeriveDeps } from './derive/deps.ts';
import { reviewedDerivatives, reviewedDeriveSteps } from './derive/reviewed.ts';
import { isOutage, PlanUnreadable, passingStoreError } from './failure-kind.ts';
import { finishPredictions } from './finish/batch.ts';
import type { JobResult } from './finish/index.ts';
import type { Download } from './finish/save-output.ts';
import { SharedWork } from './finish/shared-work.ts';
import { removeUnfinishedOutputs, settleStagedOutputs } from './finish/sweep.ts';
import { InputResolver } from './resolve-input.ts';
import { retryableFailure } from './service-failure.ts';

export interface ActivityDeps {
  readonly client: ServiceClient;
  /** The store an output location names (store/index.ts, openStore). */
  readonly storeOf: (location: string) => Store;
  /** Plans read back from disk (verified against their digest). */
  readonly plans: PlanCache;
  /** The manifest of each output folder. */
  readonly manifests: Manifests;
  /** Fetches an output link into a file (activities/download.ts). */
  readonly download: Download;
  /** Makes the derivatives of saved outputs (derive/deps.ts). */
  readonly derive: DeriveDeps;
}

/** Used when the service does not publish its limits: modest, so a real account is not flooded. */
export const FALLBACK_LIMITS: ServiceLimits = { createsPerSecond: 5, maxInFlight: 16 };

/** Jobs the end-of-campaign sweep reads at a time: a stored plan's page. */
const SWEEP_PAGE = 1_000;

/** A plan's jobs in order, read a page at a time: never the whole plan in memory. */
async function* jobsOf(plan: LoadedPlan, jobCount: number): AsyncIterable<PlannedJob> {
  for (let from = 0; from < jobCount; from += SWEEP_PAGE) {
    yield* await plan.jobs(from, Math.min(SWEEP_PAGE, jobCount - from));
  }
}

/** Every failure of the activity leaves it classified (service-failure.ts): nothing retries unseen. */
function classified<A, R>(activity: (request: A) => Promise<R>): (request: A) => Promise<R> {
  return (request) =>
    activity(request).catch((error: unknown) => {
      throw retryableFailure(error);
    });
}

export function createActivities({ client, storeOf, plans, manifests, download, derive }: ActivityDeps) {
  const resolver = new InputResolver(client);
  const claims = new ClaimsIndex();
  const finishing = new SharedWork<JobResult>();
  /**
   * A plan this worker cannot read stops the campaign with `plan_unreadable`, never a silent retry;
   * a store that is only restarting (passingStoreError) is retried like any passing fault.
   */
  const planOf = (ref: PlanRef) =>
    plans.get(ref).catch((error: unknown) => {
      throw retryableFailure(passingStoreError(error) ? error : new PlanUnreadable(ref, error));
    });

  return {
    /** Can this worker read the plan and write the output location? (activities/check-access.ts) */
    checkAccess: (input: CheckAccessInput) => checkAccess(input, storeOf),

    async loadJobs(ref: PlanRef, from: number, count: number): Promise<JobRef[]> {
      const plan = await planOf(ref);
      const stepIndex = new Map(plan.head.steps.map((step, index) => [step.id, index]));
      const reviewedDerives = reviewedDeriveSteps(plan.head);
      const jobs = await plan.jobs(from, count).catch((error: unknown) => {
        // A page changed or gone is the plan's condition, final like an unreadable head.
        throw retryableFailure(passingStoreError(error) ? error : new PlanUnreadable(ref, error));
      });
      return jobs.map((job, offset) => {
        const i = from + offset;
        // The budget guard commits a price before every create: a job without one must not run.
        if (job.usd === null) {
          throw ApplicationFailure.nonRetryable(
            `job ${job.name} has no price: run stores the service's estimate with the plan`,
          );
        }
        return {
          i,
          key: job.key,
          name: job.name,
          parent: job.parent,
          step: stepIndex.get(job.step)!,
          usd: job.usd,
          // A reviewed job with descendants: its gate holds back the indexes up to `end` (stored by run).
          ...(job.subtree ? { end: job.subtree.end, belowUsd: job.subtree.belowUsd } : {}),
          // A step with `on_refusal: { fallback }`: what a take on the fallback model commits.
          ...(job.fallbackUsd === undefined ? {} : { fallbackUsd: job.fallbackUsd }),
          // Reviewed derive steps: each of its files waits for a decision once the output is saved.
          ...reviewedDerivatives(job, reviewedDerives),
        };
      });
    },

    /** Records review decisions, once per job key and take (records/decisions.ts). */
    async recordDecisions(request: {
      campaign: string;
      outputDir: string;
      records: readonly DecisionRecord[];
    }): Promise<number> {
      try {
        return await writeDecisions(
          request.outputDir,
          request.campaign,
          request.records,
          storeOf(request.outputDir),
        );
      } catch (error) {
        throw retryableFailure(error);
      }
    },

    async readServiceLimits(): Promise<ServiceLimits> {
      try {
        const limits = await retryRead(() => client.account.rateLimits());
        return { createsPerSecond: limits.creates_per_minute / 60, maxInFlight: limits.max_in_flight };
      } catch (error) {
        // A service that does not publish its limits gets modest ones; a passing fault is retried.
        if (error instanceof ServiceError && !error.retryable) return FALLBACK_LIMITS;
        // Down for several attempts: the workflow pauses (and says so) rather than wait in silence.
        if (isOutage(error, Context.current().info.attempt)) {
          throw ApplicationFailure.create({
            message: error.message,
            type: 'service_unavailable',
            nonRetryable: true,
          });
        }
        throw retryableFailure(error);
      }
    },

    createPredictions: classified(async (request: CreateRequest): Promise<CreateOutcome[]> => {
      const [plan, manifest] = await Promise.all([planOf(request.plan), manifests.of(request.outputDir)]);
      return createPredictions({ client, resolver, claims }, plan, manifest, request);
    }),

    /** The predictions of one step of a create batch, with their heirs (finish/batch.ts). */
    finishPredictions: classified(async (request: FinishBatchRequest): Promise<FinishBatchItem[]> => {
      const [plan, manifest] = await Promise.all([planOf(request.plan), manifests.of(request.outputDir)]);
      return finishPredictions(
        { client, resolver, claims, finishing, download, derive },
        plan,
        manifest,
        request,
      );
    }),

    /**
     * At the campaign's end, removes what killed attempts left of its jobs' outputs and records
     * (finish/sweep.ts): staged outputs on both backends, a folder's temporary files (a bucket
     * shows no unfinished upload); returns how many.
     */
    async sweepUnfinished(context: { plan: PlanRef; outputDir: string }): Promise<number> {
      const [plan, manifest] = await Promise.all([planOf(context.plan), manifests.of(context.outputDir)]);
      const staged = await settleStagedOutputs(manifest, jobsOf(plan, context.plan.jobCount));
      if (isS3Url(context.outputDir)) return staged.length;
      const steps = plan.head.steps.map((step) => step.id);
      const jobs = jobsOf(plan, context.plan.jobCount);
      return staged.length + (await removeUnfinishedOutputs(storeOf(context.outputDir), steps, jobs)).length;
    },

    /**
     * Cancels upstream every prediction this campaign created that has not finished; never
     * another campaign's, even one writing to the same folder (claims are per campaign).
     */
    async cancelOutstanding(context: { campaign: string; outputDir: string }): Promise<number> {
      const manifest = await manifests.of(context.outputDir);
      const finished = new Set((await manifest.recorded()).map((entry) => entry.prediction_id));
      const outstanding = (await readClaims(manifest.store, context.campaign)).filter(
        (c) => !finished.has(c.prediction_id),
      );
      const limit = pLimit(8);
      const results = await Promise.all(
        outstanding.map((claim) =>
          limit(() =>
            // Canceling twice is harmless, so a passing fault (5xx, reset) is tried again.
            retryRead(() => client.predictions.cancel(claim.prediction_id)).then(
              (prediction) => prediction.status === 'canceled',
              () => false, // already finished upstream (not cancelable) or gone: nothing to stop
            ),
          ),
        ),
      );
      return results.filter(Boolean).length;
    },
  };
}

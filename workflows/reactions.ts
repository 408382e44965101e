/**
 * How the campaign reacts to each activity's report, the moment it arrives: a created prediction
 * is waited for at once (naming its heir when the window binds), an ended one hands its slot to
 * its heir, and a failure takes the effect the failure policy gives it. These run between the
 * executor's decisions (campaign.ts), in the order the reports arrive.
 */
import { CancellationScope, isCancellation, log } from '@temporalio/workflow';
import type { CreateItem, CreateOutcome } from '../contract/activities.ts';
import type { InFlightJob, PendingJob, PlanRef } from '../contract/campaign.ts';
import { CREATE_GAVE_UP } from '../contract/failure-policy.ts';
import { createPredictions, finishPrediction } from './activities.ts';
import type { CampaignState } from './campaign-state.ts';
import type { CampaignClock } from './clock.ts';
import { ASSUMED_LATENCY_MS, mayNameHeir } from './decide.ts';
import { messageOf, stopOf } from './failure-of.ts';
import type { GovernorLink } from './governor/link.ts';
import type { Pacer } from './pacer.ts';
import type { RunState } from './run-state.ts';
import { createSummary, finishSummary } from './summaries.ts';

export interface Campaign {
  readonly state: CampaignState;
  readonly clock: CampaignClock;
  readonly pacer: Pacer;
  readonly run: RunState;
  readonly context: { readonly campaign: string; readonly plan: PlanRef; readonly outputDir: string };
  /** The key's rate governor, when the campaign shares its key through one. */
  readonly governor: GovernorLink | null;
}

/** `earlyHeirs`: heirs may be named before a latency is measured (decide.ts, ASSUMED_LATENCY_MS). */
export function reactions({ state, clock, pacer, run, context, governor }: Campaign, earlyHeirs: boolean) {
  /** An heir is named only while the window, not the create rate, binds (decide.ts). */
  const mayName = () =>
    mayNameHeir({
      draining: run.draining,
      limitsStale: run.limitsStale,
      latencyMs: state.latencyMs ?? (earlyHeirs ? ASSUMED_LATENCY_MS : null),
      maxInFlight: state.maxInFlight,
      createsPerSecond: state.limits.createsPerSecond,
    });

  /** A report of the create activity (or of an heir's create inside a finish). */
  function onCreate(outcome: CreateOutcome): void {
    switch (outcome.kind) {
      case 'created': {
        clock.observe(outcome.at);
        state.onCreated(outcome.i, outcome.predictionId, outcome.at);
        const pending = state.pendingOf(outcome.i);
        const heir = mayName() ? state.reserveHeir(outcome.i) : null;
        void finish({ pending, predictionId: outcome.predictionId, startedAt: outcome.at, heir });
        break;
      }
      case 'cached':
        state.onCached(outcome.i, outcome);
        break;
      case 'skipped':
        state.onSkipped(outcome.i);
        break;
      case 'rejected':
        state.onRejected(outcome.i, outcome.code, outcome.message, outcome.failure);
        break;
      case 'retry':
        if (!run.limitsStale) {
          log.warn('rate limited: creates pause', { forMs: outcome.afterMs });
          governor?.throttled(outcome.afterMs); // once per read of the limits, like the warning
        }
        state.onRetry(outcome.i);
        pacer.pauseUntil(clock.now() + outcome.afterMs, clock.now());
        run.rateLimited();
        break;
    }
  }

  /** Waits for one prediction, its download and its heir's create (finishPrediction). */
  async function finish(flight: InFlightJob, resumed = false): Promise<void> {
    const { pending, predictionId, startedAt, heir } = flight;
    const i = pending.job.i;
    const request = {
      ...context,
      ...itemOf(pending),
      predictionId,
      startedAt,
      resumed,
      heir: heir && itemOf(heir),
    };
    // The UI names the job; the summary is metadata, not a decision (replays ignore it).
    const options = { summary: finishSummary(pending, heir, resumed) };
    if (heir) run.chaining++;
    try {
      // A finish that creates an heir is not canceled with the campaign: its create lands and is
      // claimed, and canceling its own prediction upstream ends it promptly.
      const result = heir
        ? await CancellationScope.nonCancellable(() =>
            finishPrediction.executeWithOptions(options, [request]),
          )
        : await finishPrediction.executeWithOptions(options, [request]);
      clock.observe(result.at);
      if (run.cancelled) {
        if (heir && result.heir?.kind === 'created') state.onCanceledHeir(heir);
        return;
      }
      state.onFinished(i, result.outcome);
      if (result.waitedMs !== null && !resumed) {
        state.observeWait(result.waitedMs, pending.job.step);
        governor?.observeLatency(state.latencyMs);
      }
      if (!heir) return;
      state.promoteHeir(i);
      // The heir's create spent a token of the service's rate; an heir not tried waits its turn.
      if (result.heir?.kind === 'created') pacer.take(1, clock.now());
      if (result.heir) onCreate(result.heir);
      else state.onRetry(heir.job.i);
    } catch (error) {
      if (run.cancelled || isCancellation(error)) return;
      const stop = stopOf(error);
      if (stop) state.stopWith(stop.effect.outcome, stop.message, [i]);
      else
        state.onFinished(
          i,
          { kind: 'failed', creditsUsed: null, message: messageOf(error) },
          'finish_gave_up',
        );
      if (!heir) return;
      // Whether the heir was created is unknown: it is created again under the same idempotency key.
      state.promoteHeir(i);
      state.onRetry(heir.job.i);
    } finally {
      if (heir) run.chaining--;
      run.changed = true;
      run.reports++;
    }
  }

  /** Creates a batch of picked jobs (createPredictions) and takes each job's outcome. */
  async function submit(batch: readonly PendingJob[]): Promise<void> {
    run.creating++;
    try {
      const items = batch.map(itemOf);
      const outcomes = await createPredictions.executeWithOptions({ summary: createSummary(batch) }, [
        { ...context, items },
      ]);
      if (run.cancelled) return;
      for (const outcome of outcomes) onCreate(outcome);
    } catch (error) {
      if (run.cancelled || isCancellation(error)) return;
      const stop = stopOf(error);
      if (stop) {
        state.stopWith(
          stop.effect.outcome,
          stop.message,
          batch.map(({ job }) => job.i),
        );
        return;
      }
      // Retries are exhausted only for errors the service marks final: report them per job.
      for (const { job } of batch) state.onRejected(job.i, CREATE_GAVE_UP, messageOf(error));
    } finally {
      run.creating--;
      run.changed = true;
      run.reports++;
    }
  }

  return { finish, submit };
}

/** What the activities need of a job: its index and take (and a reviewer's retake and prompt, when given). */
function itemOf({ job, regen, retake, prompt }: PendingJob): CreateItem {
  return { i: job.i, regen, ...(retake ? { retake } : {}), ...(prompt === undefined ? {} : { prompt }) };
}

/**
 * How the campaign reacts to each activity's report, the moment it arrives: a created prediction
 * is waited for at once (naming its heir when the window binds), an ended one hands its slot to
 * its heir, and a failure takes the effect the failure policy gives it. These run between the
 * executor's decisions (campaign.ts), in the order the reports arrive.
 */
import { ApplicationFailure, CancellationScope, isCancellation, log } from '@temporalio/workflow';
import type { CreateItem, CreateOutcome, FinishOutcome } from '../contract/activities.ts';
import type { InFlightJob, PendingJob, PlanRef } from '../contract/campaign.ts';
import { CREATE_GAVE_UP } from '../contract/failure-policy.ts';
import { createPredictions, finishPrediction, finishPredictions } from './activities.ts';
import type { CampaignState } from './campaign-state.ts';
import type { CampaignClock } from './clock.ts';
import { ASSUMED_LATENCY_MS, mayNameHeir } from './decide.ts';
import { messageOf, stopOf } from './failure-of.ts';
import type { GovernorLink } from './governor/link.ts';
import type { Pacer } from './pacer.ts';
import type { RunState } from './run-state.ts';
import { createSummary, finishBatchSummary, finishSummary } from './summaries.ts';

export interface Campaign {
  readonly state: CampaignState;
  readonly clock: CampaignClock;
  readonly pacer: Pacer;
  readonly run: RunState;
  readonly context: { readonly campaign: string; readonly plan: PlanRef; readonly outputDir: string };
  /** The key's rate governor, when the campaign shares its key through one. */
  readonly governor: GovernorLink | null;
}

export function reactions({ state, clock, pacer, run, context, governor }: Campaign) {
  /** An heir is named only while the window, not the create rate, binds (decide.ts). */
  const mayName = () =>
    mayNameHeir({
      draining: run.draining,
      limitsStale: run.limitsStale,
      latencyMs: state.latencyMs ?? ASSUMED_LATENCY_MS,
      maxInFlight: state.maxInFlight,
      createsPerSecond: state.limits.createsPerSecond,
    });

  /**
   * A report of the create activity (or of an heir's create inside a finish). With `unpaired`, a
   * created job that names no heir is left there for the caller to finish with others.
   */
  function onCreate(outcome: CreateOutcome, unpaired?: InFlightJob[]): void {
    switch (outcome.kind) {
      case 'created': {
        clock.observe(outcome.at);
        state.onCreated(outcome.i, outcome.predictionId, outcome.at);
        const pending = state.pendingOf(outcome.i);
        const heir = mayName() ? state.reserveHeir(outcome.i) : null;
        const flight = { pending, predictionId: outcome.predictionId, startedAt: outcome.at, heir };
        if (heir === null && unpaired) unpaired.push(flight);
        else void finish(flight);
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
      finished(pending, result.outcome, resumed ? null : result.waitedMs);
      if (!heir) return;
      state.promoteHeir(i);
      // The heir's create spent a token of the service's rate; an heir not tried waits its turn.
      if (result.heir?.kind === 'created') pacer.take(1, clock.now());
      if (result.heir) onCreate(result.heir);
      else state.onRetry(heir.job.i);
    } catch (error) {
      if (run.cancelled || isCancellation(error)) return;
      lost(i, error);
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

  /** A finish reported its job's outcome; `waitedMs` (null: not measured) feeds the latency. */
  function finished(pending: PendingJob, outcome: FinishOutcome, waitedMs: number | null): void {
    state.onFinished(pending.job.i, outcome);
    if (waitedMs === null) return;
    state.observeWait(waitedMs, pending.job.step);
    governor?.observeLatency(state.latencyMs);
  }

  /** A finish failed for good: the failure policy's effect (a stop keeps the job for the next run). */
  function lost(i: number, error: unknown): void {
    const stop = stopOf(error);
    if (stop) state.stopWith(stop.effect.outcome, stop.message, [i]);
    else
      state.onFinished(i, { kind: 'failed', creditsUsed: null, message: messageOf(error) }, 'finish_gave_up');
  }

  /** Waits for the predictions of one step of a create batch, none naming an heir (finishPredictions). */
  async function finishAll(flights: readonly InFlightJob[]): Promise<void> {
    const items = flights.map(({ pending, predictionId, startedAt }) => ({
      ...itemOf(pending),
      predictionId,
      startedAt,
      resumed: false,
    }));
    try {
      const results = await finishPredictions.executeWithOptions({ summary: finishBatchSummary(flights) }, [
        { ...context, items },
      ]);
      if (run.cancelled) return;
      for (const [n, result] of results.entries()) {
        const { pending } = flights[n]!;
        if (result.kind === 'stopped') {
          lost(pending.job.i, ApplicationFailure.nonRetryable(result.message, result.failure));
          continue;
        }
        clock.observe(result.at);
        finished(pending, result.outcome, result.waitedMs);
      }
    } catch (error) {
      if (run.cancelled || isCancellation(error)) return;
      for (const { pending } of flights) lost(pending.job.i, error);
    } finally {
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
      const unpaired: InFlightJob[] = [];
      for (const outcome of outcomes) onCreate(outcome, unpaired);
      for (const flights of byStep(unpaired)) void finishAll(flights);
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

/** Flights grouped by step, in their order: a step's predictions end about together. */
function byStep(flights: readonly InFlightJob[]): InFlightJob[][] {
  const groups = new Map<number, InFlightJob[]>();
  for (const flight of flights) {
    const group = groups.get(flight.pending.job.step);
    if (group) group.push(flight);
    else groups.set(flight.pending.job.step, [flight]);
  }
  return [...groups.values()];
}

/** What the activities need of a job: its index and take (and a reviewer's retake and prompt, when given). */
function itemOf({ job, regen, retake, prompt }: PendingJob): CreateItem {
  return { i: job.i, regen, ...(retake ? { retake } : {}), ...(prompt === undefined ? {} : { prompt }) };
}

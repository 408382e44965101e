/**
 * The campaign's executor: it carries out the effects `step` (engine/step.ts) returns and
 * turns each result back into an event, and decides nothing. Activities run as they are started
 * (a created prediction is waited for the moment the create answers); the loop's own reads are
 * awaited by the loop (campaign.ts). Every event also wakes the loop.
 */
import {
  CancellationScope,
  condition,
  isCancellation,
  log,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { CampaignInput, InFlightJob, PendingJob } from '../../contract/campaign.ts';
import type { DecisionRecord } from '../../contract/review.ts';
import type { CapsLink } from '../caps/link.ts';
import type { Effect } from '../engine/effects.ts';
import type { CampaignEvent } from '../engine/events.ts';
import { isDone } from '../engine/jobs/occupancy.ts';
import type { Model } from '../engine/model.ts';
import { progressOf } from '../engine/notices/progress.ts';
import { step } from '../engine/step.ts';
import { kindOfFailure, lostOf, messageOf } from '../failure-of.ts';
import type { GovernorLink } from '../governor/link.ts';
import {
  cancelOutstanding,
  createPredictions,
  finishPredictions,
  loadJobs,
  readServiceLimits,
  recordDecisions,
} from './activities.ts';
import { finishItemsOf, itemOf } from './activity-items.ts';
import { notifier } from './notifier.ts';
import type { PublishedAttributes } from './search-attributes.ts';
import {
  CANCEL_SUMMARY,
  createSummary,
  finishBatchSummary,
  loadSummary,
  READ_LIMITS_SUMMARY,
} from './summaries.ts';

export type Executor = ReturnType<typeof executor>;

export function executor(
  model: Model,
  input: CampaignInput,
  link: GovernorLink | null,
  attributes: PublishedAttributes | null,
  caps: CapsLink | null = null,
) {
  const context = { campaign: input.campaign, plan: input.plan, outputDir: input.outputDir };
  const { jobs, clock, run: state } = model;
  /** Set by every event: the loop's wait ends on it. */
  let woken = false;
  /** The cancel's next pass, as `step` asked for it (cancel.ts carries the passes out). */
  let cancelPass: Extract<Effect, { kind: 'cancel-upstream' }> | null = null;
  /** Signals to the governor not yet delivered: the campaign waits for them before it ends. */
  const telling: Promise<void>[] = [];
  const notices = notifier(input, dispatch);

  function dispatch(event: CampaignEvent): void {
    woken = true;
    for (const effect of step(model, event)) start(effect);
  }

  /** Starts an effect that runs beside the loop; the loop's own (reads, waits, ends) are campaign.ts's. */
  function start(effect: Effect): void {
    switch (effect.kind) {
      case 'create':
        void create(effect.batch, effect.reconcileSince);
        return;
      case 'finish-batch':
        void finishBatch(effect.flights, effect.resumed);
        return;
      case 'tell-governor':
        if (link) telling.push(link.tell(effect.note));
        return;
      case 'tell-caps':
        if (caps) telling.push(caps.tell(effect.note));
        return;
      case 'publish':
        publish(effect.indexed);
        return;
      case 'notify':
        notices.send(effect.id, effect.notice, effect.targets ?? []);
        return;
      case 'cancel-upstream':
        cancelPass = effect;
        return;
      case 'log':
        log[effect.level](effect.message, { campaign: input.campaign, ...effect.attrs });
        return;
      default:
        throw new Error(`effect ${effect.kind} belongs to the loop`);
    }
  }

  async function create(batch: readonly PendingJob[], reconcileSince?: number): Promise<void> {
    let event: CampaignEvent;
    try {
      const request = { ...context, items: batch.map(itemOf) };
      const outcomes = await createPredictions.executeWithOptions({ summary: createSummary(batch) }, [
        reconcileSince === undefined ? request : { ...request, reconcileSince },
      ]);
      event = { kind: 'created', batch, outcomes };
    } catch (error) {
      event = { kind: 'create-lost', batch, lost: lostOf(error) };
    }
    dispatch(event);
  }

  async function finishBatch(flights: readonly InFlightJob[], resumed?: true): Promise<void> {
    const items = finishItemsOf(input.steps, flights, resumed);
    const options = { summary: finishBatchSummary(flights) };
    const run = () => finishPredictions.executeWithOptions(options, [{ ...context, items }]);
    let event: CampaignEvent;
    try {
      // A batch naming an heir is not canceled with the campaign: every heir it creates is
      // reported and claimed before cancel's second pass, and canceling its own predictions
      // upstream ends it promptly.
      const results = flights.some((flight) => flight.heir)
        ? await CancellationScope.nonCancellable(run)
        : await run();
      event = { kind: 'batch-finished', flights, results, ...(resumed ? { resumed } : {}) };
    } catch (error) {
      event = { kind: 'batch-lost', flights, lost: lostOf(error) };
    }
    dispatch(event);
  }

  /** The memo's progress, and the search attributes that changed since last written. */
  function publish(indexed: boolean): void {
    const progress = progressOf(model, input.campaign, clock.at);
    upsertMemo({ progress });
    if (!indexed || !attributes) return;
    const changed = attributes.changed(progress);
    if (changed.length > 0) upsertSearchAttributes(changed);
  }

  /**
   * A read or record of the loop, awaited: its result as an event, or a stop of the whole campaign
   * (the loop then lets work in flight land). Any other failure fails the workflow, as it did.
   */
  async function settle<T>(work: () => Promise<T>, event: (value: T) => CampaignEvent | null): Promise<void> {
    let value: T;
    try {
      value = await work();
    } catch (error) {
      if (isCancellation(error)) throw error;
      const effects = step(model, {
        kind: 'read-failed',
        failure: kindOfFailure(error),
        message: messageOf(error),
      });
      if (effects.some((effect) => effect.kind === 'fail')) throw error;
      woken = true;
      for (const effect of effects) start(effect);
      return;
    }
    const next = event(value);
    if (next) dispatch(next);
  }

  /** Each accepted decision, created once per job key and take (records/decisions.ts). */
  async function record(records: readonly DecisionRecord[]): Promise<void> {
    await recordDecisions.executeWithOptions({ summary: `record ${records.length} review decisions` }, [
      { campaign: context.campaign, outputDir: context.outputDir, records },
    ]);
  }

  /** Runs one of the loop's effects to its end (reads and records awaited, the rest started). */
  async function run(effect: Effect): Promise<void> {
    switch (effect.kind) {
      case 'read-limits':
        return settle(
          () => readServiceLimits.executeWithOptions({ summary: READ_LIMITS_SUMMARY }, []),
          (limits) => ({ kind: 'limits-read', limits }),
        );
      case 'load-jobs':
        return settle(
          () =>
            loadJobs.executeWithOptions(
              { summary: loadSummary(effect.from, effect.count, input.plan.jobCount) },
              [input.plan, effect.from, effect.count],
            ),
          (loaded) => ({ kind: 'jobs-loaded', jobs: loaded }),
        );
      case 'read-released': {
        const { span } = effect;
        return settle(
          () =>
            loadJobs.executeWithOptions(
              { summary: `read jobs ${span.from + 1}–${span.from + span.count} again: released by reviews` },
              [input.plan, span.from, span.count],
            ),
          (loaded) => ({ kind: 'released', span, jobs: loaded }),
        );
      }
      case 'record-decisions':
        return settle(
          () => record(effect.records),
          () => null,
        );
      case 'wait':
        return wait(effect.ms);
      default:
        start(effect);
    }
  }

  /**
   * Until an event arrives or the campaign is done; with `ms`, at most that long (a wait that ran
   * its length moves the campaign clock by it).
   */
  async function wait(ms: number | null): Promise<void> {
    woken = false;
    // A pick can itself end the campaign (the budget stops it with nothing in flight): no
    // activity will then report, so being done is a reason to wake too.
    const wake = () => woken || isDone(jobs);
    if (ms === null) {
      await condition(wake);
      return;
    }
    const from = clock.at;
    if (!(await condition(wake, ms))) dispatch({ kind: 'slept', from, ms });
  }

  /**
   * One pass of a cancel: once what it waits for has landed, every prediction the campaign claimed
   * is canceled upstream, and `step` hears of it (and may ask for another pass).
   */
  async function cancelUpstream({ after }: Extract<Effect, { kind: 'cancel-upstream' }>): Promise<void> {
    await condition(() => (after === 'creates' ? state.creating : state.chaining) === 0);
    await cancelOutstanding.executeWithOptions({ summary: CANCEL_SUMMARY }, [context]);
    dispatch({ kind: 'canceled', after });
  }

  return {
    dispatch,
    run,
    record,
    /**
     * Decisions of the `review` update that could not be recorded: `step` stops the campaign on a
     * condition of the whole campaign, else nothing moves (the update fails with the reason).
     */
    recordFailed(error: unknown): void {
      const effects = step(model, {
        kind: 'record-failed',
        failure: kindOfFailure(error),
        message: messageOf(error),
      });
      if (effects.length === 0) return;
      woken = true;
      for (const effect of effects) start(effect);
    },
    /** The cancel's passes `step` asks for, one at a time, until the campaign is canceled. */
    async cancelPasses(): Promise<void> {
      for (let pass = cancelPass; pass !== null; pass = cancelPass) {
        cancelPass = null;
        await cancelUpstream(pass);
      }
    },
    wake: () => {
      woken = true;
    },
    /** Every notice's delivery ended; the memo then shows how they went. */
    notified: async () => {
      await notices.settled();
      if (model.notices) publish(false);
    },
    /** Every signal to the governor delivered (or given up on). */
    told: async () => {
      await Promise.all(telling.splice(0));
    },
  };
}

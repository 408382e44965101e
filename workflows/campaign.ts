/**
 * The campaign workflow: runs a stored plan through the service with a sliding window of
 * predictions in flight, paced to the service's create rate, inside the budget, and rolls over
 * with continue-as-new before its history grows large (ARCHITECTURE.md, decisions 4–6).
 *
 * It is a thin executor: `decide` (decide.ts) says what to do next, the campaign state
 * (campaign-state.ts) takes each activity's report, and what a failure does is the failure
 * policy's (contract/failure-policy.ts). Reactions to reports run as soon as the report arrives
 * (a created prediction is waited for at once, an ended one hands its slot to its heir); the loop
 * below runs everything else. Determinism: decisions read the campaign clock (clock.ts), never
 * Date.now(), and every change of decision goes behind patched() (docs/engine.md).
 */
import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { CreateOutcome } from '../contract/activities.ts';
import type { CampaignInput, CampaignProgress, InFlightJob, PendingJob } from '../contract/campaign.ts';
import { CREATE_GAVE_UP } from '../contract/failure-policy.ts';
import {
  cancelOutstanding,
  createPredictions,
  finishPrediction,
  loadJobs,
  readServiceLimits,
} from './activities.ts';
import { CampaignState } from './campaign-state.ts';
import { CampaignClock } from './clock.ts';
import { type Command, decide, MAX_DRAIN_MS, mayNameHeir, rollOverAt, type Situation } from './decide.ts';
import { progressQuery } from './messages.ts';
import { Pacer } from './pacer.ts';
import { RunState } from './run-state.ts';

/**
 * Progress is published in the memo, so clients read it from the server without a query (a query
 * answered by a worker that has not cached the run can make it apply part of a workflow task
 * early, and the task then carries commands a replay does not make: docs/engine.md, "Progress
 * without queries"). Histories recorded before this have no such events, hence the patch.
 */
const PROGRESS_IN_MEMO = 'progress-in-memo';
/** Campaign-clock time between two memo updates: about one history event per second. */
const PUBLISH_EVERY_MS = 1_000;

export async function campaignWorkflow(input: CampaignInput): Promise<CampaignProgress> {
  const publishesProgress = patched(PROGRESS_IN_MEMO);
  // Seeded from history (the execution's start event, or the clock carried over), never from the
  // first task's time, which is what runStartTime and Date.now() read.
  const clock = new CampaignClock(input.carried?.clock ?? workflowInfo().startTime.getTime());
  const limits = input.carried?.limits ?? (await readServiceLimits());
  const state = new CampaignState(input.steps, input.plan.jobCount, input.concurrency, input.budget, {
    carried: input.carried,
    limits,
    now: clock.now(), // the first run's start: for progress only (elapsed time, ETA)
  });
  const pacer = new Pacer(state.limits.createsPerSecond, clock.now());
  const run = new RunState(clock.now());
  const context = { campaign: input.campaign, plan: input.plan, outputDir: input.outputDir };
  const rollOverLimit = rollOverAt(state.maxInFlight);
  setHandler(progressQuery, () => state.progress(input.campaign, Date.now()));
  log.info('campaign run started', { campaign: input.campaign, run: state.runs, jobs: input.plan.jobCount });

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
        state.onCached(outcome.i);
        break;
      case 'skipped':
        state.onSkipped(outcome.i);
        break;
      case 'rejected':
        state.onRejected(outcome.i, outcome.code, outcome.message);
        break;
      case 'retry':
        if (!run.limitsStale) log.warn('rate limited: creates pause', { forMs: outcome.afterMs });
        state.onRetry(outcome.i);
        pacer.pauseUntil(clock.now() + outcome.afterMs, clock.now());
        run.rateLimited();
        break;
    }
  }

  const mayName = () =>
    mayNameHeir({
      draining: run.draining,
      limitsStale: run.limitsStale,
      latencyMs: state.latencyMs,
      maxInFlight: state.maxInFlight,
      createsPerSecond: state.limits.createsPerSecond,
    });

  /** Waits for one prediction, its download and its heir's create (finishPrediction). */
  async function finish(flight: InFlightJob, resumed = false): Promise<void> {
    const { pending, predictionId, startedAt, heir } = flight;
    const i = pending.job.i;
    const request = {
      ...context,
      i,
      regen: pending.regen,
      predictionId,
      startedAt,
      resumed,
      heir: heir && { i: heir.job.i, regen: heir.regen },
    };
    if (heir) run.chaining++;
    try {
      // A finish that creates an heir is not canceled with the campaign: its create lands and is
      // claimed, and canceling its own prediction upstream ends it promptly.
      const result = heir
        ? await CancellationScope.nonCancellable(() => finishPrediction(request))
        : await finishPrediction(request);
      clock.observe(result.at);
      if (run.cancelled) {
        if (heir && result.heir?.kind === 'created') state.onCanceledHeir(heir);
        return;
      }
      state.onFinished(i, result.outcome);
      if (result.waitedMs !== null && !resumed) state.observeWait(result.waitedMs);
      if (!heir) return;
      state.promoteHeir(i);
      // The heir's create spent a token of the service's rate; an heir not tried waits its turn.
      if (result.heir?.kind === 'created') pacer.take(1, clock.now());
      if (result.heir) onCreate(result.heir);
      else state.onRetry(heir.job.i);
    } catch (error) {
      if (run.cancelled || isCancellation(error)) return;
      state.onFinished(i, { kind: 'failed', creditsUsed: null, message: messageOf(error) }, 'finish_gave_up');
      if (!heir) return;
      // Whether the heir was created is unknown: it is created again under the same idempotency key.
      state.promoteHeir(i);
      state.onRetry(heir.job.i);
    } finally {
      if (heir) run.chaining--;
      run.changed = true;
    }
  }

  /** Creates a batch of picked jobs (createPredictions) and takes each job's outcome. */
  async function submit(batch: readonly PendingJob[]): Promise<void> {
    run.creating++;
    try {
      const items = batch.map(({ job, regen }) => ({ i: job.i, regen }));
      const outcomes = await createPredictions({ ...context, items });
      if (run.cancelled) return;
      for (const outcome of outcomes) onCreate(outcome);
    } catch (error) {
      if (run.cancelled || isCancellation(error)) return;
      // Retries are exhausted only for errors the service marks final: report them per job.
      for (const { job } of batch) state.onRejected(job.i, CREATE_GAVE_UP, messageOf(error));
    } finally {
      run.creating--;
      run.changed = true;
    }
  }

  const situation = (): Situation => ({
    done: state.isDone(),
    draining: run.draining,
    rollOverDue: workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= rollOverLimit,
    drainLeftMs: run.drainLeftMs(clock.now(), MAX_DRAIN_MS),
    creating: run.creating,
    active: state.activeCount(),
    waiting: state.waitingCount(),
    maxInFlight: state.maxInFlight,
    wanted: state.wanted(),
    limitsStale: run.limitsStale,
    msSinceLimitsRead: clock.now() - run.limitsReadAt,
    tokens: () => pacer.available(clock.now()),
    msUntilToken: () => pacer.msUntilNext(clock.now()),
  });

  /**
   * Waits until an activity reports or the campaign is done; with `ms`, resolves false when that
   * time passed first (true otherwise). Not an async function: the loop awaits the condition itself, so a wake-up
   * resumes it at the same point of the microtask queue as in histories already recorded.
   */
  function nextChange(ms?: number): Promise<unknown> {
    run.changed = false;
    // A pick can itself end the campaign (the budget stops it with nothing in flight): no activity
    // will then report a change, so being done is a reason to wake too.
    const wake = () => run.changed || state.isDone();
    return ms === undefined ? condition(wake) : condition(wake, ms);
  }

  /** The memo's progress, at most once per PUBLISH_EVERY_MS unless `final`. */
  function publish(final = false): void {
    if (!publishesProgress || (!final && clock.now() - run.publishedAt < PUBLISH_EVERY_MS)) return;
    run.publishedAt = clock.now();
    upsertMemo({ progress: state.progress(input.campaign, clock.now()) });
  }

  for (const flight of input.carried?.inFlight ?? []) void finish(flight, true);

  let command: Command = decide(situation());
  try {
    while (command.kind !== 'complete' && command.kind !== 'roll-over') {
      switch (command.kind) {
        case 'start-drain':
          run.drainingSince = clock.now();
          log.info('draining before continue-as-new', { history: workflowInfo().historyLength });
          break;
        case 'read-limits': {
          const before = state.limits;
          state.limits = await readServiceLimits();
          pacer.setRate(state.limits.createsPerSecond);
          run.limitsRead(clock.now());
          if (JSON.stringify(before) !== JSON.stringify(state.limits))
            log.info('service limits changed', { before, after: state.limits });
          break;
        }
        case 'load-jobs':
          state.admit(await loadJobs(input.plan, state.cursor, command.count));
          break;
        case 'submit': {
          const batch = state.pick(command.max);
          if (batch.length === 0) {
            publish();
            await nextChange();
            break;
          }
          pacer.take(batch.length, clock.now());
          void submit(batch);
          break;
        }
        case 'wait': {
          publish();
          const { ms } = command;
          if (ms === null) await nextChange();
          else {
            const from = clock.now();
            if ((await nextChange(ms)) === false) clock.slept(from, ms);
          }
          break;
        }
      }
      command = decide(situation());
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    return cancelCampaign();
  }

  async function cancelCampaign(): Promise<CampaignProgress> {
    run.cancelled = true;
    await CancellationScope.nonCancellable(async () => {
      // Let creates under way land, so the predictions they made are in the claims log too.
      await condition(() => run.creating === 0);
      await cancelOutstanding(context);
      // Heirs created while their predecessors were being canceled are canceled in turn.
      if (run.chaining > 0) {
        await condition(() => run.chaining === 0);
        await cancelOutstanding(context);
      }
    });
    state.cancelAll();
    publish(true);
    log.info('campaign canceled', { campaign: input.campaign });
    // Completing (rather than rethrowing) keeps the final progress readable as the result, with
    // outcome 'canceled', by `status` and `cancel` even when no worker is up to answer queries.
    return state.progress(input.campaign, Date.now());
  }

  publish(true);
  if (command.kind === 'roll-over') {
    log.info('continuing as new', { run: state.runs, cursor: state.cursor, inFlight: state.activeCount() });
    await continueAsNew<typeof campaignWorkflow>({
      ...input,
      carried: { ...state.carry(), clock: clock.now() },
    });
  }
  const progress = state.progress(input.campaign, Date.now());
  log.info('campaign ended', { campaign: input.campaign, outcome: progress.outcome, spent: progress.spent });
  return progress;
}

function messageOf(error: unknown): string {
  let current: unknown = error;
  // Activity failures wrap the activity's own error: report the innermost message.
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}

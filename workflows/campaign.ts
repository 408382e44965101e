/**
 * The campaign workflow: runs a stored plan through the service with a sliding window of
 * predictions in flight, paced to the service's create rate, inside the budget, and rolls over
 * with continue-as-new before its history grows large (ARCHITECTURE.md, decisions 4–6).
 */
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';
import { CampaignState } from './campaign-state.ts';
import { CampaignClock } from './clock.ts';
import { progressQuery } from './messages.ts';
import { Pacer } from './pacer.ts';
import type { CampaignInput, CampaignProgress, CreateOutcome, InFlightJob, PendingJob } from './types.ts';

type Activities = ReturnType<typeof createActivities>;

const { loadJobs, readServiceLimits, cancelOutstanding } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Creates are waited for even when canceled, so every prediction they made is known and canceled.
 * The heartbeat timeout notices a killed worker in seconds rather than at the start-to-close limit.
 */
const { createPredictions } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // Short waits: a create refused by a 5xx is worth trying again soon; Retry-After overrides this.
  retry: { initialInterval: '300 milliseconds', backoffCoefficient: 1.5, maximumInterval: '5 seconds' },
});

/** Heartbeats every few seconds: a worker killed mid-wait is noticed quickly and another resumes. */
const { finishPrediction } = proxyActivities<Activities>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
});

/**
 * The pacer allows one second of burst, as the service does. Smaller steps (0.1 s) spread creates
 * more evenly but wake the workflow on timers ten times a second: more history, more roll-overs.
 * (They once exposed a nondeterminism, since fixed by the campaign clock: workflows/clock.ts.)
 */
const PACING_BURST_SECONDS = 1;
/** Most predictions created by one activity (one batch request). */
const MAX_BATCH = 50;
/** Shortest pause between paced submissions: fewer, larger batches keep the history small. */
const MIN_PACING_MS = 100;
/** Re-reading the service's limits after a 429 happens at most this often. */
const LIMITS_REFRESH_MS = 5_000;
/** Heirs are used while C / latency stays within this factor of the create rate (see mayChain). */
const CHAIN_RATE_MARGIN = 1.05;
/**
 * Continue-as-new drains first (decision 6): a run that completes while activity results keep
 * arriving has its last task refused by the server (UnhandledCommand), and the SDK then replays
 * the whole history, during which more results arrive: seconds lost per roll-over, measured.
 * A drain costs about one prediction latency, so runs should be long: our servers suggest
 * continue-as-new at 8,000 events (worker/dev-server.ts, docker-compose.yml) rather than 4,096,
 * and this ceiling covers servers that suggest later, with room for the drain's own events under
 * the 10,000 that issue 5 allows. Predictions still running after MAX_DRAIN_MS (long videos) are
 * handed to the next run instead of waited for.
 */
const MAX_EVENTS_PER_RUN = 9_000;
const MIN_EVENTS_PER_RUN = 2_000;
const MAX_DRAIN_MS = 5_000;

export async function campaignWorkflow(input: CampaignInput): Promise<CampaignProgress> {
  // Seeded from history (the execution's start event, or the clock carried over), never from the
  // first task's time, which is what runStartTime and Date.now() read.
  const clock = new CampaignClock(input.carried?.clock ?? workflowInfo().startTime.getTime());
  const limits = input.carried?.limits ?? (await readServiceLimits());
  const state = new CampaignState(input.steps, input.plan.jobCount, input.concurrency, input.budget, {
    carried: input.carried,
    limits,
    now: Date.now(), // for progress only (elapsed time, ETA), no decision reads it
  });
  const pacer = new Pacer(state.limits.createsPerSecond, clock.now(), PACING_BURST_SECONDS);
  setHandler(progressQuery, () => state.progress(input.campaign, Date.now()));

  let changed = false;
  let creating = 0;
  /** Finishes that create a heir: cancel waits for them, so the claims log names every heir. */
  let chaining = 0;
  /** Set by a 429: the service's limits may have changed under us. */
  let limitsStale = false;
  let limitsReadAt = clock.now();
  let cancelled = false;
  const context = { campaign: input.campaign, plan: input.plan, outputDir: input.outputDir };

  /**
   * Heirs only while the window binds, not the create rate: a heir is created when its
   * predecessor ends, so a campaign of heirs creates C / latency predictions a second. At or under
   * the service's rate that is what the window allows anyway, minus a workflow round trip per slot.
   */
  const mayChain = () =>
    drainingSince === null &&
    // A 429 says the limits may have changed: no new heirs until they are read again.
    !limitsStale &&
    state.latencyMs !== null &&
    (state.maxInFlight * 1000) / state.latencyMs <= state.limits.createsPerSecond * CHAIN_RATE_MARGIN;

  function onCreate(outcome: CreateOutcome): void {
    switch (outcome.kind) {
      case 'created': {
        clock.observe(outcome.at);
        state.onCreated(outcome.i, outcome.predictionId, outcome.at);
        const pending = state.pendingOf(outcome.i);
        const heir = mayChain() ? state.reserveHeir(outcome.i) : null;
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
        state.onRetry(outcome.i);
        pacer.pauseUntil(clock.now() + outcome.afterMs, clock.now());
        limitsStale = true;
        break;
    }
  }

  async function finish(flight: InFlightJob, resumed = false): Promise<void> {
    const { pending, predictionId, startedAt, heir } = flight;
    const i = pending.job.i;
    const run = () =>
      finishPrediction({
        ...context,
        i,
        regen: pending.regen,
        predictionId,
        startedAt,
        resumed,
        heir: heir && { i: heir.job.i, regen: heir.regen },
      });
    if (heir) chaining++;
    try {
      // A finish that creates a heir is not canceled with the campaign: its create lands and is
      // claimed, and canceling its own prediction upstream ends it promptly.
      const result = heir ? await CancellationScope.nonCancellable(run) : await run();
      clock.observe(result.at);
      if (cancelled) {
        if (heir && result.heir?.kind === 'created') state.onCanceledHeir(heir);
        return;
      }
      state.onFinished(i, result.outcome);
      if (result.waitedMs !== null && !resumed) state.observeWait(result.waitedMs);
      if (!heir) return;
      state.promoteHeir(i);
      // The heir's create spent a token of the service's rate; a heir not tried waits its turn.
      if (result.heir?.kind === 'created') pacer.take(1, clock.now());
      if (result.heir) onCreate(result.heir);
      else state.onRetry(heir.job.i);
    } catch (error) {
      if (cancelled || isCancellation(error)) return;
      state.onFinished(i, { kind: 'failed', creditsUsed: null, message: messageOf(error) });
      if (!heir) return;
      // Whether the heir was created is unknown: it is created again under the same idempotency key.
      state.promoteHeir(i);
      state.onRetry(heir.job.i);
    } finally {
      if (heir) chaining--;
      changed = true;
    }
  }

  async function submit(batch: PendingJob[]): Promise<void> {
    creating++;
    try {
      const outcomes = await createPredictions({
        ...context,
        items: batch.map(({ job, regen }) => ({ i: job.i, regen })),
      });
      if (cancelled) return;
      for (const outcome of outcomes) onCreate(outcome);
    } catch (error) {
      if (cancelled || isCancellation(error)) return;
      // Retries are exhausted only for errors the service marks final: report them per job.
      for (const { job } of batch) state.onRejected(job.i, 'CREATE_FAILED', messageOf(error));
    } finally {
      creating--;
      changed = true;
    }
  }

  for (const flight of input.carried?.inFlight ?? []) void finish(flight, true);

  // Room left for the events of a drain: each job in flight still completes (about 5 events).
  const rollOverAt = Math.max(MIN_EVENTS_PER_RUN, MAX_EVENTS_PER_RUN - 5 * state.maxInFlight);
  const rollOver = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= rollOverAt;
  /** When the drain before continue-as-new began; null while running normally. */
  let drainingSince: number | null = null;

  try {
    while (!state.isDone()) {
      if (drainingSince === null && rollOver()) drainingSince = clock.now();
      const draining = drainingSince !== null;
      const drainLeft = draining ? drainingSince! + MAX_DRAIN_MS - clock.now() : 0;
      // Creates under way always land first (their predictions need ids to be handed over).
      if (draining && creating === 0 && (state.activeCount() === 0 || drainLeft <= 0)) break;
      if (limitsStale && clock.now() - limitsReadAt >= LIMITS_REFRESH_MS) {
        state.limits = await readServiceLimits();
        pacer.setRate(state.limits.createsPerSecond);
        limitsStale = false;
        limitsReadAt = clock.now();
        continue;
      }
      const wanted = draining ? 0 : state.wanted();
      if (wanted > 0 && state.waitingCount() < state.maxInFlight) {
        state.admit(await loadJobs(input.plan, state.cursor, wanted));
        continue;
      }
      let pauseMs: number | undefined;
      if (!draining) {
        const tokens = pacer.available(clock.now());
        const batch = tokens > 0 ? state.pick(Math.min(tokens, MAX_BATCH)) : [];
        if (batch.length > 0) {
          pacer.take(batch.length, clock.now());
          void submit(batch);
          continue;
        }
        // Out of tokens while jobs wait for a free slot: come back when tokens have refilled.
        if (tokens === 0 && state.waitingCount() > 0 && state.activeCount() < state.maxInFlight) {
          pauseMs = Math.max(MIN_PACING_MS, pacer.msUntilNext(clock.now()));
        }
      }
      if (draining) pauseMs = Math.max(MIN_PACING_MS, drainLeft);
      // A pick can itself end the campaign (the budget stops it with nothing in flight): no
      // activity will then report a change, so being done is a reason to wake too.
      changed = false;
      const wake = () => changed || state.isDone();
      if (pauseMs === undefined) await condition(wake);
      else {
        const from = clock.now();
        if (!(await condition(wake, pauseMs))) clock.slept(from, pauseMs);
      }
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    cancelled = true;
    await CancellationScope.nonCancellable(async () => {
      // Let creates under way land, so the predictions they made are in the claims log too.
      await condition(() => creating === 0);
      await cancelOutstanding(context);
      // Heirs created while their predecessors were being canceled are canceled in turn.
      if (chaining > 0) {
        await condition(() => chaining === 0);
        await cancelOutstanding(context);
      }
    });
    state.cancelAll();
    // Completing (rather than rethrowing) keeps the final progress readable as the result, with
    // outcome 'canceled', by `status` and `cancel` even when no worker is up to answer queries.
    return state.progress(input.campaign, Date.now());
  }

  if (!state.isDone()) {
    await continueAsNew<typeof campaignWorkflow>({
      ...input,
      carried: { ...state.carry(), clock: clock.now() },
    });
  }
  return state.progress(input.campaign, Date.now());
}

function messageOf(error: unknown): string {
  let current: unknown = error;
  // Activity failures wrap the activity's own error: report the innermost message.
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}

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
 * Date.now(). A change of decisions within an engine generation goes behind patched(); a new
 * generation (contract/engine.ts) starts clean (docs/engine.md, "Upgrades").
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { CampaignInput, CampaignProgress, ServiceLimits } from '../contract/campaign.ts';
import { loadJobs, readServiceLimits } from './activities.ts';
import { CampaignState } from './campaign-state.ts';
import { cancelCampaign } from './cancel.ts';
import { CampaignClock } from './clock.ts';
import { batchWorth, type Command, decide, MAX_DRAIN_MS, rollOverAt, type Situation } from './decide.ts';
import { stopOf } from './failure-of.ts';
import { governorOf } from './governor/link.ts';
import { progressQuery } from './messages.ts';
import { Pacer } from './pacer.ts';
import { publisher } from './publish.ts';
import { reactions } from './reactions.ts';
import { hasGates, reviewGates } from './review-gates.ts';
import { RunState } from './run-state.ts';
import { PublishedAttributes } from './search-attributes.ts';
import { loadSummary, READ_LIMITS_SUMMARY } from './summaries.ts';
import { sweepAtEnd } from './sweep.ts';

/** Not async: the loop awaits the activity's own promise, as in histories already recorded. */
function readLimits() {
  return readServiceLimits.executeWithOptions({ summary: READ_LIMITS_SUMMARY }, []);
}

export async function campaignWorkflow(input: CampaignInput): Promise<CampaignProgress> {
  const indexed =
    input.searchAttributes === true
      ? new PublishedAttributes(workflowInfo().typedSearchAttributes.getAll())
      : null;
  // Seeded from history (the execution's start event, or the clock carried over), never from the
  // first task's time, which is what runStartTime and Date.now() read.
  const clock = new CampaignClock(input.carried?.clock ?? workflowInfo().startTime.getTime());
  const governor = governorOf(input);
  const read = input.carried?.limits ?? (await readLimits());
  // A run carried over holds its share already; the first one waits for it before any create.
  const limits = governor && !input.carried ? ((await governor.firstShare(read)) ?? read) : read;
  const state = new CampaignState(input.steps, input.plan.jobCount, input.concurrency, input.budget, {
    carried: input.carried,
    limits,
    now: clock.now(), // the first run's start: for progress only (elapsed time, ETA)
    clock: () => clock.now(),
    longestChainsFirst: input.steps.some((step) => step.from !== undefined),
  });
  const pacer = new Pacer(state.limits.createsPerSecond, clock.now());
  const run = new RunState(clock.now());
  const context = { campaign: input.campaign, plan: input.plan, outputDir: input.outputDir };
  const rollOverLimit = rollOverAt(state.maxInFlight);
  const publish = publisher({ campaign: input.campaign, state, clock, run, indexed });
  setHandler(progressQuery, () => state.progress(input.campaign, Date.now()));
  log.info('campaign run started', { campaign: input.campaign, run: state.runs, jobs: input.plan.jobCount });

  const { finish, submit } = reactions({ state, clock, pacer, run, context, governor });
  governor?.steer({ state, clock, pacer, run });
  // Review gates (review-gates.ts): the `review` update and the timer of review timeouts.
  const gates = hasGates(input.steps) ? reviewGates({ state, clock, run, context }) : null;
  if (gates) void gates.watchDeadlines();

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
    minBatch: batchWorth(state.limits.createsPerSecond),
    msUntilTokens: (count: number) => pacer.msUntilNext(clock.now(), count),
    released: state.stopReason === null && state.gates.nextRead() !== undefined,
    reviewsDue: (state.gates.deadline() ?? Number.POSITIVE_INFINITY) <= clock.now(),
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

  /**
   * A read of the loop that failed for good: a condition of the whole campaign stops it with its
   * outcome (the loop then lets work in flight land); anything else fails the workflow, as before.
   */
  function stopped(error: unknown): void {
    const stop = stopOf(error);
    if (!stop || isCancellation(error)) throw error;
    state.stopWith(stop.effect.outcome, stop.message);
    log.warn('campaign stopping', { outcome: stop.effect.outcome, reason: stop.message });
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
          let read: ServiceLimits;
          try {
            read = await readLimits();
          } catch (error) {
            stopped(error);
            run.limitsRead(clock.now()); // not again at once: the stop lets work in flight land
            break;
          }
          run.limitsRead(clock.now());
          // Shared out by the governor, the limits come back as this campaign's share.
          if (governor) {
            governor.report(read);
            break;
          }
          state.limits = read;
          pacer.setRate(state.limits.createsPerSecond);
          if (JSON.stringify(before) !== JSON.stringify(state.limits))
            log.info('service limits changed', { before, after: state.limits });
          break;
        }
        case 'load-jobs':
          // try/await, not .catch(): an extra promise hop would move the loop in the microtask order.
          try {
            state.admit(
              await loadJobs.executeWithOptions(
                { summary: loadSummary(state.cursor, command.count, input.plan.jobCount) },
                [input.plan, state.cursor, command.count],
              ),
            );
          } catch (error) {
            stopped(error);
          }
          break;
        case 'submit': {
          const batch = state.pick(command.max);
          if (batch.length === 0) {
            publish(null);
            await nextChange();
            break;
          }
          pacer.take(batch.length, clock.now());
          void submit(batch);
          break;
        }
        case 'read-released':
          try {
            await gates!.readReleased();
          } catch (error) {
            stopped(error);
          }
          break;
        case 'time-out-reviews':
          try {
            await gates!.timeOut();
          } catch (error) {
            stopped(error);
          }
          break;
        case 'wait': {
          const { ms } = command;
          publish(ms);
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
    if (isCancellation(error)) return cancelCampaign({ state, run, context, governor, publish });
    if (governor) await governor.leave(); // a failed campaign creates nothing more
    throw error;
  }

  // A decision's record is written before its acknowledgement: let the last ones land.
  if (gates) await condition(allHandlersFinished);
  if (governor && command.kind === 'complete') await governor.leave();
  publish(null, true);
  if (command.kind === 'complete') await sweepAtEnd(context);
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

/**
 * The campaign workflow: runs a stored plan through the service with a sliding window of
 * predictions in flight, paced to the service's create rate, inside the budget, and rolls over
 * with continue-as-new before its history grows large (ARCHITECTURE.md, decisions 4–6, 15).
 *
 * Every decision is the engine's (engine/step.ts): this loop asks it what to do next (a tick),
 * the executor (executor.ts) carries out the effects and feeds each result back as an event, and
 * signals, updates and timers do the same. Determinism: decisions read the campaign clock
 * (engine/pacing/clock.ts), never Date.now(). A change of decisions within an engine generation goes behind
 * patched(); a new generation (contract/engine.ts) starts clean (docs/engine.md, "Upgrades"):
 * this one, generation 3, has none.
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
import type { CampaignInput, CampaignProgress, ServiceLimits } from '../../contract/campaign.ts';
import { progressQuery } from '../../contract/campaign-messages.ts';
import { capsLinkOf } from '../caps/link.ts';
import { leaveNote } from '../engine/caps.ts';
import type { Effect } from '../engine/effects.ts';
import { carry, openCampaign } from '../engine/jobs/carry-over.ts';
import { activeCount, maxInFlight } from '../engine/jobs/occupancy.ts';
import type { Model } from '../engine/model.ts';
import * as Notices from '../engine/notices/notices.ts';
import { progressOf } from '../engine/notices/progress.ts';
import type { Clock } from '../engine/pacing/clock.ts';
import { rollOverAt } from '../engine/pacing/decide.ts';
import { bucket } from '../engine/pacing/pacer.ts';
import { runState } from '../engine/pacing/run-state.ts';
import { step } from '../engine/step.ts';
import { type GovernorLink, governorOf } from '../governor/link.ts';
import { readServiceLimits } from './activities.ts';
import { cancelCampaign, canceledAtStart } from './cancel.ts';
import { type Executor, executor } from './executor.ts';
import { startPulse } from './pulse.ts';
import { hasGates, reviewGates } from './review-gates.ts';
import { PublishedAttributes } from './search-attributes.ts';
import { READ_LIMITS_SUMMARY } from './summaries.ts';
import { sweepAtEnd } from './sweep.ts';

export async function campaignWorkflow(input: CampaignInput): Promise<CampaignProgress> {
  const attributes =
    input.searchAttributes === true
      ? new PublishedAttributes(workflowInfo().typedSearchAttributes.getAll(), input.searchFaults === true)
      : null;
  // Seeded from history (the execution's start event, or the clock carried over), never from the
  // first task's time, which is what runStartTime and Date.now() read.
  const clock: Clock = { at: input.carried?.clock ?? workflowInfo().startTime.getTime() };
  const link = governorOf(input);
  const capsLink = capsLinkOf(input);
  const started = await startUp(input, link);
  if (started === 'canceled') return canceledAtStart(input, link);
  const { read, share } = started;
  const jobs = openCampaign(input.steps, input.plan.jobCount, input.concurrency, input.budget, {
    carried: input.carried,
    limits: share?.limits ?? read,
    now: clock.at, // the first run's start: for progress only (elapsed time, ETA)
    longestChainsFirst: input.steps.some((step) => step.from !== undefined),
    ...(capsLink && { caps: { carried: capsLink.carried(input.carried?.caps) } }),
  });
  const model: Model = {
    jobs,
    run: runState(clock.at),
    pacer: bucket(jobs.limits.createsPerSecond, clock.at),
    clock,
    governed: link ? { concurrency: input.concurrency, reportedNeed: null } : null,
    // Runs a replacement worker replays within one task (engine/pacing/decide.ts).
    rollOverLimit: rollOverAt(maxInFlight(jobs)),
    searchable: attributes !== null,
    ...(input.notify &&
      input.notify.targets.length > 0 && {
        notices: Notices.notices(input.carried?.notices, input.notify.targets),
      }),
  };
  const effects = executor(model, input, link, attributes, capsLink);
  capsLink?.follow((event) => effects.dispatch(event));
  link?.follow((taken) => effects.dispatch({ kind: 'share', share: taken }));
  setHandler(progressQuery, () => progressOf(model, input.campaign, Date.now()));
  const gated = hasGates(input.steps);
  if (gated) reviewGates(model, effects);
  log.info('campaign run started', { campaign: input.campaign, run: jobs.runs, jobs: input.plan.jobCount });

  let end: 'complete' | 'roll-over';
  const pulse = startPulse(model, effects);
  try {
    effects.dispatch({ kind: 'started', joinedOthers: share?.joinedOthers ?? false });
    end = await loop(model, effects, gated);
  } catch (error) {
    if (isCancellation(error)) return cancelCampaign(model, effects, input);
    await link?.tell({ kind: 'leave' }); // a failed campaign creates nothing more
    if (capsLink && jobs.allowance) await capsLink.tell(leaveNote(jobs.allowance));
    throw error;
  } finally {
    // The final progress is published once, by the loop's end: no pulse after it.
    pulse.stop();
  }
  await effects.told();
  await effects.notified();
  // A decision accepted while the run was telling and notifying is recorded and acknowledged
  // before the run ends: a continue-as-new would abort it half done.
  if (gated) await condition(allHandlersFinished);
  if (end === 'complete') await sweepAtEnd(input);
  else {
    log.info('continuing as new', {
      run: jobs.runs,
      cursor: jobs.window.cursor,
      inFlight: activeCount(jobs),
    });
    await continueAsNew<typeof campaignWorkflow>({
      ...input,
      carried: {
        ...carry(jobs),
        clock: clock.at,
        ...(model.notices && { notices: Notices.carry(model.notices) }),
      },
    });
  }
  const progress = progressOf(model, input.campaign, Date.now());
  log.info('campaign ended', { campaign: input.campaign, outcome: progress.outcome, spent: progress.spent });
  return progress;
}

/**
 * What the first run reads before it opens the campaign: the service's limits and the governor's
 * first share. A cancel that arrives meanwhile (even before the first task) ends it here.
 */
async function startUp(
  input: CampaignInput,
  link: GovernorLink | null,
): Promise<{ read: ServiceLimits; share: Awaited<ReturnType<GovernorLink['firstShare']>> } | 'canceled'> {
  try {
    const read =
      input.carried?.limits ??
      (await readServiceLimits.executeWithOptions({ summary: READ_LIMITS_SUMMARY }, []));
    // A run carried over holds its share already; the first one waits for it before any create.
    const share = link && !input.carried ? await link.firstShare(read) : null;
    return { read, share };
  } catch (error) {
    if (isCancellation(error)) return 'canceled';
    throw error;
  }
}

/** Asks `step` what to do next and does it, until the campaign completes or rolls over. */
async function loop(model: Model, effects: Executor, gated: boolean): Promise<'complete' | 'roll-over'> {
  for (;;) {
    const info = workflowInfo();
    const next: Effect[] = step(model, {
      kind: 'tick',
      historyLength: info.historyLength,
      continueAsNewSuggested: info.continueAsNewSuggested,
      at: new Date().toISOString(),
    });
    const end = next.find((effect) => effect.kind === 'complete' || effect.kind === 'roll-over');
    // A decision's record is written before its acknowledgement: let the last ones land.
    if (end && gated) await condition(allHandlersFinished);
    for (const effect of next) {
      if (effect === end) return effect.kind as 'complete' | 'roll-over';
      await effects.run(effect);
    }
  }
}

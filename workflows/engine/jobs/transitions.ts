/**
 * What each event of a job does to the campaign's state: a pick, an heir, a create's answer, a
 * finish, a refusal, a stop, a cancel. What a failure does is read from the failure policy
 * (contract/failure-policy.ts). The job reports (reports.ts) call these; each changes the plain
 * state in place. One verb per event: a finish frees a slot, settles money, counts an outcome
 * and may open a review gate, so each event's moves stay together here.
 */
import type { FinishOutcome } from '../../../contract/activities.ts';
import type { JobRef, PendingJob } from '../../../contract/campaign.ts';
import { effectOf, type FailureKind } from '../../../contract/failure-policy.ts';
import type { CampaignState } from '../model.ts';
import * as Allowance from '../money/allowance.ts';
import { fits } from '../money/budget.ts';
import { cancel, type StopReason, stop, stopped } from '../money/stop.ts';
import { abandon } from '../reviews/reviews.ts';
import { cached, type Recorded, saved } from './gated-window.ts';
import { hold, modelOf, pay, unhold } from './holds.ts';
import { maxInFlight } from './occupancy.ts';
import * as Pace from './pace.ts';
import { longestChainsFirst, select } from './selection.ts';
import * as Slots from './slots.ts';
import * as Tally from './tally.ts';
import { parentUnfinished, putBack } from './window.ts';

/** Failure kinds counted under a name of their own besides `failed` or `regenerated` (StepCounts). */
const NAMED_FAILURES: Partial<Record<FailureKind, Tally.NamedCount>> = {
  download_failed: 'download_failed',
  download_stalled: 'download_stalled',
  output_expired: 'outputs_expired',
};

/** Takes up to `max` jobs to create now (selection.ts says which); they enter the window. */
export function pick(s: CampaignState, max: number): PendingJob[] {
  const picked = take(s, max, maxInFlight(s) - s.slots.activeCount);
  for (const pending of picked) Slots.occupy(s.slots, pending);
  return picked;
}

/**
 * Reserves the job that in-flight job `i` creates as soon as it ends (its heir), under the same
 * rules as pick but for the window: the heir takes over `i`'s slot rather than a new one.
 */
export function reserveHeir(s: CampaignState, i: number): PendingJob | null {
  const [heir] = take(s, 1, Number.POSITIVE_INFINITY);
  if (!heir) return null;
  Slots.nameHeir(s.slots, i, heir);
  return heir;
}

/** A heir created while the campaign was being canceled, and canceled upstream with it. */
export function onCanceledHeir(s: CampaignState, heir: PendingJob): void {
  Tally.count(s.tally, heir.job.step, 'created');
  Tally.count(s.tally, heir.job.step, 'canceled');
}

export function onCreated(
  s: CampaignState,
  i: number,
  predictionId: string,
  at: number,
  paid?: Slots.PaidBefore,
): void {
  Tally.count(s.tally, Slots.created(s.slots, i, predictionId, at, paid).job.step, 'created');
}

/** Job `i` was found recorded at campaign time `now` (a decision recorded for its take applies again). */
export function onCached(s: CampaignState, i: number, now: number, recorded: Recorded = {}): void {
  const { job } = release(s, i);
  Tally.count(s.tally, job.step, 'cached');
  cached(s, job, recorded, now);
}

export function onSkipped(s: CampaignState, i: number): void {
  const { job } = release(s, i);
  Tally.count(s.tally, job.step, 'skipped');
  endedWithoutOutput(s, job);
}

/** The service refused to create job `i` for good (`paid`: what a flagged take of an earlier run cost). */
export function onRejected(s: CampaignState, i: number, message: string, kind: FailureKind, paid = 0): void {
  const pending = release(s, i);
  if (paid > 0) pay(s, pending, paid);
  const effect = effectOf(kind);
  if (effect.kind === 'on_refusal') {
    refused(s, pending, message);
    return;
  }
  if (effect.kind === 'stop_campaign' && effect.job === 'keep') {
    putBack(s.window, pending);
    stop(s.halt, effect.outcome, message);
    return;
  }
  fail(s, pending.job, kind, message);
}

/**
 * Job `i` met a condition of the whole campaign (a full disk, a deleted key…): it stays to be
 * done by the next run, and no new job starts. Its prediction, if any, is claimed upstream and
 * adopted by that run rather than paid again.
 */
export function stopWith(
  s: CampaignState,
  outcome: StopReason,
  message: string,
  keep: readonly number[] = [],
): void {
  for (const i of keep) putBack(s.window, release(s, i));
  stop(s.halt, outcome, message);
}

/**
 * Job `i` was never created (rate limited, the service down, an heir not tried): back to the
 * front of the queue, nothing committed (the failure policy's `requeue`).
 */
export function requeue(s: CampaignState, i: number): void {
  putBack(s.window, release(s, i));
}

/** Job `i`'s prediction ended at campaign time `now` (a saved take of a reviewed step waits from then). */
export function onFinished(
  s: CampaignState,
  i: number,
  outcome: FinishOutcome,
  now: number,
  given?: FailureKind,
): void {
  // The outcome's own kind (a download's), else the caller's, else a failed prediction's.
  const kind = (outcome.kind === 'failed' ? outcome.failure : undefined) ?? given ?? 'prediction_failed';
  const createdAt = Slots.createdAt(s.slots, i);
  const pending = release(s, i);
  const { job, regen } = pending;
  if (outcome.kind === 'canceled') {
    Tally.count(s.tally, job.step, 'canceled');
    return;
  }
  Pace.worked(s.pace, job.step, createdAt, now);
  // The service's own figure when it gives one; else the price we committed.
  pay(s, pending, outcome.creditsUsed ?? (outcome.kind === 'succeeded' ? job.usd : 0));
  if (outcome.kind === 'succeeded') {
    Tally.count(s.tally, job.step, 'succeeded');
    if (outcome.refreshed) Tally.note(s.tally, job.step, 'links_refreshed');
    saved(s, job, regen, now, false, outcome.underived);
    return;
  }
  const named = NAMED_FAILURES[kind];
  if (named) Tally.note(s.tally, job.step, named);
  const effect = effectOf(kind);
  if (effect.kind === 'on_refusal') {
    refused(s, pending, outcome.message);
    return;
  }
  if (
    effect.kind === 'regenerate' &&
    regen - (pending.retriesFrom ?? 0) < s.steps[job.step]!.retries &&
    !stopped(s.halt)
  ) {
    Tally.count(s.tally, job.step, 'regenerated');
    putBack(s.window, { ...pending, regen: regen + 1 });
    return;
  }
  if (effect.kind === 'regenerate' && effect.endsAs)
    Tally.end(s.tally, s.steps, job, effect.endsAs, outcome.message);
  else Tally.fail(s.tally, s.steps, job, outcome.message);
  endedWithoutOutput(s, job);
}

/** The campaign was canceled: every job in flight ends as canceled, waiting ones stay unstarted. */
export function cancelAll(s: CampaignState): void {
  for (const i of Slots.activeIndexes(s.slots)) Tally.count(s.tally, release(s, i).job.step, 'canceled');
  for (const heir of Slots.dropHeirs(s.slots)) unhold(s, heir);
  cancel(s.halt);
}

/**
 * The service's content policy refused a take of the job (its prompt at create, its output after
 * processing): the step's `on_refusal` says what follows. A further take is a new regeneration (a
 * new seed, a new idempotency key) sent back to the queue, so the budget rule prices it like any
 * job; a fallback take is priced on its own model. When nothing is left to try, or submission has
 * stopped, the job ends refused and its descendants are skipped when they reach the create.
 */
function refused(s: CampaignState, pending: PendingJob, message: string): void {
  const { job, regen } = pending;
  const rule = s.steps[job.step]!.onRefusal ?? { kind: 'skip' };
  const refusals = (pending.refusals ?? 0) + 1;
  const again =
    !stopped(s.halt) &&
    ((rule.kind === 'retry' && refusals <= rule.times) || (rule.kind === 'fallback' && refusals === 1));
  if (!again) {
    Tally.end(s.tally, s.steps, job, 'refused', message);
    endedWithoutOutput(s, job);
    return;
  }
  Tally.count(s.tally, job.step, 'regenerated');
  // The take is a regeneration, but not one of `retries:` (which count failed predictions):
  // moving where they count from keeps all of them for the new take.
  const retriesFrom = (pending.retriesFrom ?? 0) + 1;
  const retake: PendingJob = { ...pending, regen: regen + 1, refusals, retriesFrom };
  if (rule.kind !== 'fallback') putBack(s.window, retake);
  else
    putBack(s.window, {
      ...retake,
      model: rule.model,
      job: { ...job, usd: job.fallbackUsd ?? job.usd },
    });
}

/** Selects and holds jobs: the first that does not fit the budget stops submission for good. */
function take(s: CampaignState, max: number, windowRoom: number): PendingJob[] {
  if (stopped(s.halt)) return [];
  const { allowance } = s;
  const { picked, rest, budgetReached, capHeld } = select(longestChainsFirst(s.window.waiting, s.heights), {
    max,
    windowRoom,
    parentUnfinished: (job) => parentUnfinished(s.window, job),
    stepRoom: (step) => Slots.stepRoom(s.slots, s.steps, step),
    fits: (usd, also) => fits(s.budget, usd, also),
    ...(allowance && { withinCap: (pending, picked) => withinCap(s, allowance, pending, picked) }),
  });
  if (budgetReached) stop(s.halt, 'budget_reached');
  if (capHeld && allowance) Allowance.short(allowance, modelOf(s, capHeld), capHeld.job.usd);
  for (const pending of picked) hold(s, pending);
  s.window.waiting = rest;
  return picked;
}

function withinCap(
  s: CampaignState,
  allowance: Allowance.AllowanceState,
  pending: PendingJob,
  picked: readonly PendingJob[],
): boolean {
  const model = modelOf(s, pending);
  const also = picked.reduce((sum, p) => (modelOf(s, p) === model ? sum + p.job.usd : sum), 0);
  return Allowance.fits(allowance, model, pending.job.usd, also);
}

function release(s: CampaignState, i: number): PendingJob {
  const pending = Slots.vacate(s.slots, i);
  unhold(s, pending);
  return pending;
}

/** The job ended without an output (failed, skipped, refused): a retake's descendants are skipped. */
function endedWithoutOutput(s: CampaignState, job: JobRef): void {
  abandon(s.reviews, job.key, s.window.cursor);
}

function fail(s: CampaignState, job: JobRef, kind: FailureKind, message: string): void {
  Tally.fail(s.tally, s.steps, job, message);
  endedWithoutOutput(s, job);
  const effect = effectOf(kind);
  if (effect.kind === 'stop_campaign') stop(s.halt, effect.outcome, message);
}

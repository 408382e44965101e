/**
 * What each event of a job does to the campaign's state (campaign-state.ts): a pick, an heir, a
 * create's answer, a finish, a refusal, a stop, a cancel, and a reviewer's decision. What a
 * failure does is read from the failure policy (contract/failure-policy.ts). The reducer
 * (reducer/*.ts) calls these; each changes the plain state in place.
 *
 * Longer than our files usually are, on purpose: it is the one place where an event of a job moves
 * several parts at once (a finish frees a slot, settles money, counts an outcome and may release a
 * window place), one verb per event; splitting it would scatter each event over files.
 */
import type { Micros } from '../api/money.ts';
import type { FinishOutcome } from '../contract/activities.ts';
import type { JobRef, PendingJob } from '../contract/campaign.ts';
import { effectOf, type FailureKind } from '../contract/failure-policy.ts';
import type { DecisionRecord, ReviewAck, ReviewDecision } from '../contract/review.ts';
import { type CampaignState, hold, isDone, maxInFlight, modelOf } from './campaign-state.ts';
import * as Allowance from './state/allowance.ts';
import * as Budget from './state/budget.ts';
import * as Gates from './state/gates.ts';
import { longestChainsFirst, select } from './state/selection.ts';
import * as Slots from './state/slots.ts';
import * as Stop from './state/stop.ts';
import * as Tally from './state/tally.ts';
import * as Window from './state/window.ts';

/** Failure kinds counted under a name of their own besides `failed` or `regenerated` (StepCounts). */
const NAMED_FAILURES: Partial<Record<FailureKind, Tally.NamedCount>> = {
  download_failed: 'download_failed',
  download_stalled: 'download_stalled',
  output_expired: 'outputs_expired',
};

/** Jobs read from the plan (review gates hold some back: state/gates.ts). */
export function admit(s: CampaignState, jobs: readonly JobRef[]): void {
  Gates.admit(s, jobs);
}

/** Takes up to `max` jobs to create now (state/selection.ts says which); they enter the window. */
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

/** Job `i` has ended and its heir's create was attempted: the heir now holds the slot. */
export function promoteHeir(s: CampaignState, i: number): void {
  Slots.promoteHeir(s.slots, i);
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

/** A prediction of `step` ended `ms` after it was created: the latencies move. */
export function observeWait(s: CampaignState, ms: number, step: number): void {
  Tally.observeWait(s.tally, ms, step);
}

/** Job `i` was found recorded at campaign time `now` (a decision recorded for its take applies again). */
export function onCached(s: CampaignState, i: number, now: number, recorded: Gates.Recorded = {}): void {
  const { job } = release(s, i);
  Tally.count(s.tally, job.step, 'cached');
  Gates.cached(s, job, recorded, now);
}

export function onSkipped(s: CampaignState, i: number): void {
  const { job } = release(s, i);
  Tally.count(s.tally, job.step, 'skipped');
  Gates.closedWithoutOutput(s, job);
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
    Window.putBack(s.window, pending);
    Stop.stop(s.halt, effect.outcome, message);
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
  outcome: Stop.StopReason,
  message: string,
  keep: readonly number[] = [],
): void {
  for (const i of keep) Window.putBack(s.window, release(s, i));
  Stop.stop(s.halt, outcome, message);
}

/** Rate limited before creation: back to the front of the queue, nothing committed. */
export function onRetry(s: CampaignState, i: number): void {
  Window.putBack(s.window, release(s, i));
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
  const pending = release(s, i);
  const { job, regen } = pending;
  if (outcome.kind === 'canceled') {
    Tally.count(s.tally, job.step, 'canceled');
    return;
  }
  // The service's own figure when it gives one; else the price we committed.
  pay(s, pending, outcome.creditsUsed ?? (outcome.kind === 'succeeded' ? job.usd : 0));
  if (outcome.kind === 'succeeded') {
    Tally.count(s.tally, job.step, 'succeeded');
    if (outcome.refreshed) Tally.note(s.tally, job.step, 'links_refreshed');
    Gates.saved(s, job, regen, now);
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
    !Stop.stopped(s.halt)
  ) {
    Tally.count(s.tally, job.step, 'regenerated');
    Window.putBack(s.window, { ...pending, regen: regen + 1 });
    return;
  }
  if (effect.kind === 'regenerate' && effect.endsAs)
    Tally.end(s.tally, s.steps, job, effect.endsAs, outcome.message);
  else Tally.fail(s.tally, s.steps, job, outcome.message);
  Gates.closedWithoutOutput(s, job);
}

/** The campaign was canceled: every job in flight ends as canceled, waiting ones stay unstarted. */
export function cancelAll(s: CampaignState): void {
  for (const i of Slots.activeIndexes(s.slots)) Tally.count(s.tally, release(s, i).job.step, 'canceled');
  for (const heir of Slots.dropHeirs(s.slots)) unhold(s, heir);
  Stop.cancel(s.halt);
}

/** A reviewer's batch (the `review` update): each decision applies or is refused (`dryRun`: judged only). */
export function review(
  s: CampaignState,
  decisions: readonly ReviewDecision[],
  at: string,
  dryRun = false,
): { ack: ReviewAck; records: DecisionRecord[] } {
  return Gates.review(s, decisions, at, { ended: isDone(s), dryRun });
}

function pay(s: CampaignState, pending: PendingJob, paid: Micros): void {
  Budget.charge(s.budget, paid);
  if (s.allowance) Allowance.charge(s.allowance, modelOf(s, pending), paid);
  Tally.pay(s.tally, pending.job.step, paid);
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
    !Stop.stopped(s.halt) &&
    ((rule.kind === 'retry' && refusals <= rule.times) || (rule.kind === 'fallback' && refusals === 1));
  if (!again) {
    Tally.end(s.tally, s.steps, job, 'refused', message);
    Gates.closedWithoutOutput(s, job);
    return;
  }
  Tally.count(s.tally, job.step, 'regenerated');
  // The take is a regeneration, but not one of `retries:` (which count failed predictions):
  // moving where they count from keeps all of them for the new take.
  const retriesFrom = (pending.retriesFrom ?? 0) + 1;
  const retake: PendingJob = { ...pending, regen: regen + 1, refusals, retriesFrom };
  if (rule.kind !== 'fallback') Window.putBack(s.window, retake);
  else
    Window.putBack(s.window, {
      ...retake,
      model: rule.model,
      job: { ...job, usd: job.fallbackUsd ?? job.usd },
    });
}

/** Selects and holds jobs: the first that does not fit the budget stops submission for good. */
function take(s: CampaignState, max: number, windowRoom: number): PendingJob[] {
  if (Stop.stopped(s.halt)) return [];
  const { allowance } = s;
  const { picked, rest, budgetReached, capHeld } = select(longestChainsFirst(s.window.waiting, s.heights), {
    max,
    windowRoom,
    parentUnfinished: (job) => Window.parentUnfinished(s.window, job),
    stepRoom: (step) => Slots.stepRoom(s.slots, s.steps, step),
    fits: (usd, also) => Budget.fits(s.budget, usd, also),
    ...(allowance && { withinCap: (pending, picked) => withinCap(s, allowance, pending, picked) }),
  });
  if (budgetReached) Stop.stop(s.halt, 'budget_reached');
  if (capHeld && allowance) Allowance.short(allowance, modelOf(s, capHeld), capHeld.job.usd);
  for (const pending of picked) hold(s, pending);
  s.window.waiting = rest;
  return picked;
}

function unhold(s: CampaignState, pending: PendingJob): void {
  Window.end(s.window, pending.job);
  Slots.give(s.slots, pending);
  Budget.release(s.budget, pending.job.usd);
  if (s.allowance) Allowance.release(s.allowance, modelOf(s, pending), pending.job.usd);
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

function fail(s: CampaignState, job: JobRef, kind: FailureKind, message: string): void {
  Tally.fail(s.tally, s.steps, job, message);
  Gates.closedWithoutOutput(s, job);
  const effect = effectOf(kind);
  if (effect.kind === 'stop_campaign') Stop.stop(s.halt, effect.outcome, message);
}

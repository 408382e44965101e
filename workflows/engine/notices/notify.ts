/**
 * Which notices a campaign sends (docs/notifications.md), decided here like every other decision
 * and carried out by the runtime (a `notify` effect per notice, runtime/notifier.ts). Only a campaign with targets
 * (`m.notices`) decides any, so a campaign without them issues the same commands as before.
 *
 * - review.awaiting: once per wave, when takes start to await a decision with none announced;
 *   the wave ends when no take awaits any more (decided or timed out), and the next one is new.
 * - campaign.completed / campaign.stopped: once, just before the campaign completes.
 * A cancel sends nothing: whoever canceled knows.
 */
import type { CampaignProgress } from '../../../contract/campaign.ts';
import { type Notice, type NoticeSummary, wants } from '../../../contract/notify.ts';
import type { Effect } from '../effects.ts';
import type { Model } from '../model.ts';
import { awaiting } from '../reviews/reviews.ts';
import { announce, settled } from './notices.ts';
import { campaignProgress } from './progress.ts';

/** The tick's effects, with the notices they call for: a wave awaiting review, the end. */
export function noticed(m: Model, effects: Effect[]): Effect[] {
  const { notices } = m;
  if (!notices) return effects;
  const out: Effect[] = [];
  const end = effects.findIndex((effect) => effect.kind === 'complete');
  // Takes timed out: the wave may be over.
  if (effects.some((effect) => effect.kind === 'record-decisions')) rearm(m);
  if (!notices.announced) {
    const waiting = awaiting(m.jobs.reviews, m.jobs.steps);
    if (end < 0 && waiting.some((count) => count > 0)) out.push(awaitingNotice(m, waiting));
  }
  if (end < 0) return [...out, ...effects];
  return [...effects.slice(0, end), endNotice(m), ...effects.slice(end)];
}

/** After a reviewer's batch: once no take awaits, the next take to await starts a new wave. */
export function rearm(m: Model): void {
  if (!m.notices?.announced) return;
  if (awaiting(m.jobs.reviews, m.jobs.steps).every((count) => count === 0)) m.notices.announced = false;
}

/**
 * Each notice goes to the targets that want it (a target's `events`): the notices decided by any
 * concern (the caps' threshold alerts too) are addressed here, as `step` returns them.
 */
export function addressed(m: Model, effects: Effect[]): Effect[] {
  const { notices } = m;
  if (!notices || !effects.some((effect) => effect.kind === 'notify' && !effect.targets)) return effects;
  return effects.map((effect) =>
    effect.kind === 'notify' && !effect.targets
      ? { ...effect, targets: notices.targets.filter((target) => wants(target, effect.notice.type)) }
      : effect,
  );
}

/** A delivery ended; the memo shows it with the next progress published. */
export function notified(m: Model, failure: string | null): Effect[] {
  if (m.notices) settled(m.notices, failure);
  m.run.reports++;
  return [];
}

function awaitingNotice(m: Model, waiting: readonly number[]): Effect {
  const { steps } = progressOf(m);
  const notice: Notice = {
    type: 'review.awaiting',
    steps: steps.flatMap(({ id }, s) => ((waiting[s] ?? 0) > 0 ? [{ id, awaiting: waiting[s]! }] : [])),
  };
  return { kind: 'notify', id: announce(m.notices!), notice };
}

function endNotice(m: Model): Effect {
  const progress = progressOf(m);
  const summary = summaryOf(progress);
  if (progress.outcome === 'completed')
    return { kind: 'notify', id: 'completed', notice: { type: 'campaign.completed', summary } };
  return {
    kind: 'notify',
    id: 'stopped',
    notice: {
      type: 'campaign.stopped',
      outcome: progress.outcome,
      reason: progress.stopMessage ?? null,
      summary,
    },
  };
}

function progressOf(m: Model): CampaignProgress {
  return campaignProgress(m.jobs, '', m.clock.at);
}

function summaryOf({ steps, spent, budget }: CampaignProgress): NoticeSummary {
  return {
    steps: steps.map(({ id, succeeded, cached, failed, skipped, canceled }) => ({
      id,
      succeeded,
      cached,
      failed,
      skipped,
      canceled,
    })),
    spent,
    budget,
  };
}

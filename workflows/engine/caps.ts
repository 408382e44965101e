/**
 * A capped campaign's side of its key's spend caps, as decisions (docs/caps.md): after every
 * event, the models its jobs were short of are asked for (whole jobs' worst cases), reservation no
 * job can still need is given back, spend is reported to the ledger at most once a second, and the
 * campaign's end gives its reservation back. A reservation granted, or a cap holding the campaign,
 * is taken here; so is a threshold alert, which becomes a `cap.threshold` notice to the campaign's
 * own targets. Tables: test/engine/step-caps.test.ts, test/engine/caps-campaign.test.ts. The
 * signals are sent by workflows/caps/link.ts.
 */
import type { Micros } from '../../api/money.ts';
import type { CapAlert } from '../../contract/caps.ts';
import type { CapsGrant } from '../../contract/caps-messages.ts';
import type { CapsNote, Effect } from './effects.ts';
import { modelOf } from './jobs/holds.ts';
import * as Occupancy from './jobs/occupancy.ts';
import type { Model } from './model.ts';
import * as Allowance from './money/allowance.ts';
import * as Stop from './money/stop.ts';
import * as Reviews from './reviews/reviews.ts';

/** Spend is reported to the ledger at most this often (campaign clock): a signal per job would not scale. */
export const REPORT_EVERY_MS = 1_000;
/** An ask covers this many windows of jobs (at most the jobs left), so a campaign asks about once per two windows. */
const WINDOWS_PER_ASK = 2;

/** The effects of an event, with what the caps call for after it. */
export function withCaps(m: Model, effects: Effect[], ending = false): Effect[] {
  const caps = m.jobs.allowance;
  if (!caps) return effects;
  const now = m.clock.at;
  // Never more than the jobs left: a reservation nobody will use holds the others back.
  const most = Math.min(Occupancy.maxInFlight(m.jobs) * WINDOWS_PER_ASK, Occupancy.unstarted(m.jobs));
  const keep = caps.run === null ? null : stillNeeded(m);
  const asks: Effect[] = Allowance.takeNeeds(caps).map(({ model, unit, seq }) => {
    // Known to the last job: no more than the jobs waiting on this model.
    const left = keep === null ? most : Math.min(most, waitingOn(m, model));
    const count = Math.max(1, left);
    return {
      kind: 'tell-caps',
      note: { kind: 'ask', model, unit, count, ...(seq !== undefined && { seq }) },
    };
  });
  const end = effects.findIndex((effect) => effect.kind === 'complete');
  if (end >= 0 || ending) {
    // The last spend counts and the rest of the reservation goes back before the run ends.
    const leave: Effect = { kind: 'tell-caps', note: leaveNote(caps) };
    if (end < 0) return [...asks, ...effects, leave];
    return [...asks, ...effects.slice(0, end), leave, ...effects.slice(end)];
  }
  if (keep) Allowance.giveBack(caps, keep);
  // Idle (nothing in flight), no later report would carry it: it goes now.
  const idle = Occupancy.activeCount(m.jobs) === 0;
  const due =
    caps.gaveBack ||
    (Allowance.hasUnreported(caps) &&
      (asks.length > 0 || idle || now - (caps.reportedAt ?? Number.NEGATIVE_INFINITY) >= REPORT_EVERY_MS));
  if (!due) return [...effects, ...asks];
  caps.reportedAt = now;
  return [...effects, { kind: 'tell-caps', note: reportOf(caps, 'spent') }, ...asks];
}

/** The campaign's last note to the ledger: its spend since the last report (and its totals). */
export function leaveNote(caps: Allowance.AllowanceState): CapsNote {
  return reportOf(caps, 'leave');
}

/** A report to the ledger: spend since the last one and, with `run`, the totals so far. */
export function reportOf(caps: Allowance.AllowanceState, kind: 'spent' | 'leave'): CapsNote {
  const spent = Allowance.takeUnreported(caps);
  if (caps.run === null) return { kind, spent };
  return { kind, spent, total: { ...caps.charged }, returned: { ...caps.returned } };
}

/**
 * The worst cases, per model, of the jobs that may still start; null while that is not known (the
 * plan is not read to its end, or review decisions may release more jobs): nothing goes back then.
 * Jobs found recorded, skipped or rejected leave this, so what they had reserved goes back.
 */
function stillNeeded(m: Model): Record<string, Micros> | null {
  const { jobs } = m;
  if (Stop.stopped(jobs.halt)) return {};
  if (jobs.window.cursor < jobs.jobCount || Reviews.busy(jobs.reviews)) return null;
  const keep: Record<string, Micros> = {};
  for (const pending of jobs.window.waiting) {
    const model = modelOf(jobs, pending);
    keep[model] = (keep[model] ?? 0) + pending.job.usd;
  }
  return keep;
}

function waitingOn(m: Model, model: string): number {
  return m.jobs.window.waiting.reduce((n, pending) => (modelOf(m.jobs, pending) === model ? n + 1 : n), 0);
}

/** The ledger granted reservation, or held the ask: the loop looks again (the memo shows a hold). */
export function capsGranted(m: Model, { model, micros, hold, granted }: CapsGrant): Effect[] {
  const caps = m.jobs.allowance;
  if (!caps) return [];
  const before = caps.hold;
  Allowance.granted(caps, model, micros, hold, granted);
  m.run.reports++;
  if (caps.hold && !before)
    return [{ kind: 'log', level: 'info', message: 'paused by a spend cap', attrs: { cap: caps.hold } }];
  if (before && !caps.hold) return [{ kind: 'log', level: 'info', message: 'spend cap lifted: resuming' }];
  return [];
}

/** A cap's threshold was crossed by this campaign's spend (or a cap held it): its targets hear of it. */
export function capAlerted(m: Model, alert: CapAlert): Effect[] {
  if (!m.notices) return [];
  const { cap, model, percent, spent, limit, committed } = alert;
  return [
    {
      kind: 'notify',
      id: `cap-${alert.id}`,
      notice: {
        type: 'cap.threshold',
        cap,
        model,
        percent,
        spent,
        limit,
        ...(committed !== undefined && { committed }),
      },
    },
  ];
}

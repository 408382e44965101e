/**
 * What a campaign knows of its notifications (docs/notifications.md): deliveries and failures so
 * far, for the memo and `status`, and whether the takes awaiting review now were announced, so a
 * wave of them is announced once, not once per take. Carried across continue-as-new.
 */
import type { CarriedNotices } from '../../../contract/campaign.ts';
import type { NotifyTally, NotifyTarget } from '../../../contract/notify.ts';

/** Failures kept for `status`: the latest few say what is wrong; the count says how often. */
const KEPT_FAILURES = 3;

/** Plain data in the model; carried across continue-as-new as it is (CarriedNotices). */
export interface Notices {
  delivered: number;
  failed: number;
  failures: string[];
  /** review.awaiting notices decided so far. */
  waves: number;
  /** Takes awaiting review were announced and not all decided yet. */
  announced: boolean;
  /** Where notices go (the spec's `notify` targets): not carried, every run has them from its input. */
  readonly targets: readonly NotifyTarget[];
}

export function notices(carried?: CarriedNotices, targets: readonly NotifyTarget[] = []): Notices {
  return {
    targets,
    delivered: carried?.delivered ?? 0,
    failed: carried?.failed ?? 0,
    failures: [...(carried?.failures ?? [])],
    waves: carried?.waves ?? 0,
    announced: carried?.announced ?? false,
  };
}

/** A new wave of takes awaiting review: its notice's id. */
export function announce(n: Notices): string {
  n.announced = true;
  n.waves++;
  return `review-awaiting-${n.waves}`;
}

/** One delivery ended: `failure` null when the target took it. */
export function settled(n: Notices, failure: string | null): void {
  if (failure === null) {
    n.delivered++;
    return;
  }
  n.failed++;
  n.failures = [...n.failures, failure].slice(-KEPT_FAILURES);
}

export function tally(n: Notices): NotifyTally {
  return { delivered: n.delivered, failed: n.failed, failures: [...n.failures] };
}

export function carry(n: Notices): CarriedNotices {
  return { ...tally(n), waves: n.waves, announced: n.announced };
}

/**
 * What a campaign knows of its notifications (docs/notifications.md): deliveries and failures so
 * far, for the memo and `status`, and whether the takes awaiting review now were announced, so a
 * wave of them is announced once, not once per take. Carried across continue-as-new.
 */
import type { CarriedNotices } from '../../contract/campaign.ts';
import type { NotifyTally } from '../../contract/notify.ts';

/** Failures kept for `status`: the latest few say what is wrong; the count says how often. */
const KEPT_FAILURES = 3;

export class Notices {
  private delivered: number;
  private failed: number;
  private failures: string[];
  /** review.awaiting notices decided so far. */
  private waves: number;
  /** Takes awaiting review were announced and not all decided yet. */
  announced: boolean;

  constructor(carried?: CarriedNotices) {
    this.delivered = carried?.delivered ?? 0;
    this.failed = carried?.failed ?? 0;
    this.failures = [...(carried?.failures ?? [])];
    this.waves = carried?.waves ?? 0;
    this.announced = carried?.announced ?? false;
  }

  /** A new wave of takes awaiting review: its notice's id. */
  announce(): string {
    this.announced = true;
    this.waves++;
    return `review-awaiting-${this.waves}`;
  }

  /** One delivery ended: `failure` null when the target took it. */
  settled(failure: string | null): void {
    if (failure === null) {
      this.delivered++;
      return;
    }
    this.failed++;
    this.failures = [...this.failures, failure].slice(-KEPT_FAILURES);
  }

  tally(): NotifyTally {
    return { delivered: this.delivered, failed: this.failed, failures: [...this.failures] };
  }

  carry(): CarriedNotices {
    return { ...this.tally(), waves: this.waves, announced: this.announced };
  }
}

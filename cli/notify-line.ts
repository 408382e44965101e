/** How `status` (and `run`'s last word) tells of notices that failed to arrive (docs/notifications.md). */
import type { CampaignProgress } from '../contract/campaign.ts';

/** "notifications: 1 failed to deliver to hooks.example.com: 500"; null when none failed. */
export function notifyLine({ notifications }: CampaignProgress): string | null {
  if (!notifications || notifications.failed === 0) return null;
  const last = notifications.failures.at(-1);
  const latest = notifications.failed > 1 && notifications.failures.length > 0 ? ' (latest)' : '';
  return `notifications: ${notifications.failed} failed to deliver${last ? ` to ${last}${latest}` : ''}`;
}

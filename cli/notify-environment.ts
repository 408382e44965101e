/**
 * Notification targets set by environment rather than the spec (docs/notifications.md):
 * MEDIAFLOW_NOTIFY_URL (+ MEDIAFLOW_NOTIFY_KIND, MEDIAFLOW_NOTIFY_SECRET) adds one target to the
 * campaign `run` starts. Only the variables' names go into the campaign; the worker reads their
 * values when it delivers, so its environment needs them too (the embedded worker shares this one).
 */
import { NOTIFY_ENV, withEnvironmentTarget } from '../plan/notify.ts';
import type { Plan } from '../plan/types.ts';
import { noticeSheetUrl } from '../review/sheet-url.ts';
import { UserError } from './errors.ts';

export function withNotifyEnvironment(plan: Plan, env: NodeJS.ProcessEnv = process.env): Plan {
  let notify: Plan['notify'] | null;
  try {
    notify = withEnvironmentTarget(plan.notify ?? null, env);
  } catch (error) {
    throw new UserError((error as Error).message, 'see docs/notifications.md, "By environment"');
  }
  if (!notify) return plan;
  // The review server's public URL becomes the sheet's address (review/sheet-url.ts): the notice
  // carries `<public URL>/sheet/<campaign>/`, which holds no secret, and opens where links do.
  const base = notify.reviewUrl ?? env[NOTIFY_ENV.reviewUrl] ?? null;
  let reviewUrl: string | null;
  try {
    reviewUrl = base === null ? null : noticeSheetUrl(base, plan.campaign);
  } catch (error) {
    const where = notify.reviewUrl ? 'notify.review_url' : NOTIFY_ENV.reviewUrl;
    throw new UserError(`${where}: ${(error as Error).message}`, 'see docs/notifications.md');
  }
  return { ...plan, notify: { ...notify, reviewUrl } };
}

/**
 * Notification targets set by environment rather than the spec (docs/notifications.md):
 * MEDIAFLOW_NOTIFY_URL (+ MEDIAFLOW_NOTIFY_KIND, MEDIAFLOW_NOTIFY_SECRET) adds one target to the
 * campaign `run` starts. Only the variables' names go into the campaign; the worker reads their
 * values when it delivers, so its environment needs them too (the embedded worker shares this one).
 */
import { withEnvironmentTarget } from '../plan/notify.ts';
import type { Plan } from '../plan/types.ts';
import { UserError } from './errors.ts';

export function withNotifyEnvironment(plan: Plan, env: NodeJS.ProcessEnv = process.env): Plan {
  let notify: Plan['notify'] | null;
  try {
    notify = withEnvironmentTarget(plan.notify ?? null, env);
  } catch (error) {
    throw new UserError((error as Error).message, 'see docs/notifications.md, "By environment"');
  }
  return notify ? { ...plan, notify } : plan;
}

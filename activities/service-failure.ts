/**
 * How a failure becomes an activity failure, in Temporal's terms. The kind (failure-kind.ts) and
 * the failure policy decide: a kind that stops the campaign, or a final refusal, is non-retryable
 * and carries its kind as the failure's type, which the workflow reads (workflows/failure-of.ts);
 * a passing fault retries, after exactly as long as the service asked (decision 5).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { ServiceError } from '../api/client/index.ts';
import { effectOf } from '../contract/failure-policy.ts';
import { failureKindOf, localFailureKind, PlanUnreadable } from './failure-kind.ts';

export function retryableFailure(error: unknown): unknown {
  if (error instanceof PlanUnreadable) {
    return ApplicationFailure.create({ message: error.message, type: 'plan_unreadable', nonRetryable: true });
  }
  if (!(error instanceof ServiceError)) {
    const kind = localFailureKind(error);
    if (kind === null || !(error instanceof Error)) return error;
    return ApplicationFailure.create({ message: error.message, type: kind, nonRetryable: true });
  }
  const kind = failureKindOf(error);
  return ApplicationFailure.create({
    message: error.message,
    // Kinds that stop the campaign are named for the workflow; others keep the service's code.
    type: effectOf(kind).kind === 'stop_campaign' ? kind : error.code,
    nonRetryable: !error.retryable,
    ...(error.retryAfterMs !== null ? { nextRetryDelay: error.retryAfterMs } : {}),
    details: [error.toJSON()],
  });
}

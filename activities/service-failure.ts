/**
 * How a service error becomes an activity failure. The client already classified it
 * (ServiceError.retryable / retryAfterMs); this only translates that into Temporal's terms, so the
 * server waits exactly as long as the service asked (decision 5).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { ServiceError } from '../api/client/index.ts';

export function retryableFailure(error: unknown): unknown {
  if (!(error instanceof ServiceError)) return error;
  return ApplicationFailure.create({
    message: error.message,
    type: error.code,
    nonRetryable: !error.retryable,
    ...(error.retryAfterMs !== null ? { nextRetryDelay: error.retryAfterMs } : {}),
    details: [error.toJSON()],
  });
}

/**
 * The failure policy's kind of a service error (contract/failure-policy.ts): the client already
 * classified the error (retryable, rate limited, its code); this names it in the policy's terms.
 */
import type { ServiceError } from '../api/client/index.ts';
import type { FailureKind } from '../contract/failure-policy.ts';

export function failureKindOf(error: ServiceError): FailureKind {
  if (error.rateLimited) return 'rate_limited';
  if (error.retryable) return 'transient';
  if (error.code === 'INSUFFICIENT_CREDITS') return 'insufficient_credits';
  return 'rejected';
}

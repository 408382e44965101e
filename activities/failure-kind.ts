/**
 * Names a failure in the failure policy's terms (contract/failure-policy.ts): a service error
 * (already classified by the client: retryable, rate limited, status, code) or a local I/O error
 * (its errno code). What follows from the kind is the policy's, not this module's.
 */
import { hostname } from 'node:os';
import { ServiceError } from '../api/client/index.ts';
import { isContentRefusal } from '../api/wire/index.ts';
import type { PlanRef } from '../contract/campaign.ts';
import { type FailureKind, OUTAGE_AFTER_ATTEMPTS } from '../contract/failure-policy.ts';
import { ShortWrite } from '../records/jsonl.ts';
import { s3FailureOf } from '../store/index.ts';

export function failureKindOf(error: ServiceError): FailureKind {
  if (error.rateLimited) return 'rate_limited';
  if (error.retryable) return 'transient';
  // A key that worked until now (the preflight read the account with it) was deleted or rotated.
  if (error.status === 401 || error.status === 403) return 'authentication_failed';
  if (error.code === 'INSUFFICIENT_CREDITS') return 'insufficient_credits';
  // Never retried blindly: the step's on_refusal decides (contract/failure-policy.ts).
  if (isContentRefusal(error)) return 'refused';
  return DOWNLOAD_KINDS[error.code] ?? 'rejected';
}

/** The codes of a download that ran out of fetches (download-bounds.ts) and of an expired output. */
const DOWNLOAD_KINDS: Readonly<Record<string, FailureKind>> = {
  DOWNLOAD_SHORT: 'download_failed',
  DOWNLOAD_STALLED: 'download_stalled',
  OUTPUT_EXPIRED: 'output_expired',
};

/**
 * A passing fault (5xx, timeout, connection refused; not a 429) met by the OUTAGE_AFTER_ATTEMPTS-th
 * attempt of one activity: the service is down (`service_unavailable`), not blinking.
 */
export function isOutage(error: unknown, attempt: number): error is ServiceError {
  if (attempt < OUTAGE_AFTER_ATTEMPTS || !(error instanceof ServiceError)) return false;
  return failureKindOf(error) === 'transient';
}

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);
// ELOOP: a symbolic link leading out of the output folder (store/confine.ts), which stays there.
const UNWRITABLE = new Set(['EROFS', 'EACCES', 'EPERM', 'ELOOP']);

/** The kind of a local I/O error writing outputs or records; null when retrying may help. */
export function localFailureKind(error: unknown): FailureKind | null {
  // A line that did not all land had no room: the disk (or the quota) is full.
  if (error instanceof ShortWrite) return 'disk_full';
  // A bucket that refuses our credentials, or does not exist, stays so however often we retry;
  // anything else from S3 (5xx, a reset, a slow-down) passes.
  const s3 = s3FailureOf(error);
  if (s3) return s3.status === 403 || s3.name === 'NoSuchBucket' ? 'output_unwritable' : null;
  const code = errnoOf(error);
  if (code === null) return null;
  if (DISK_FULL.has(code)) return 'disk_full';
  if (UNWRITABLE.has(code)) return 'output_unwritable';
  return null;
}

/** Network errors of a store that is there but not answering right now (restarting, overloaded). */
const PASSING_NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * Whether reading the store failed for a passing reason (an S3 server restarting, a 5xx, a reset),
 * so the read is retried rather than taken as the store's final answer.
 */
export function passingStoreError(error: unknown): boolean {
  const s3 = s3FailureOf(error);
  if (s3) return (s3.status ?? 500) >= 500;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && PASSING_NETWORK.has(code);
}

/** A plan this worker cannot read, said with which worker and which path, and what to do. */
export class PlanUnreadable extends Error {
  override readonly name = 'PlanUnreadable';
  constructor(ref: PlanRef, cause: unknown) {
    const why = errnoOf(cause) ?? (cause instanceof Error ? cause.message : String(cause));
    super(
      // What to do is the CLI's to say (cli/outcomes.ts), once.
      `worker ${hostname()} (pid ${process.pid}) cannot read the plan ${ref.file} (${why})`,
      { cause },
    );
  }
}

function errnoOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : null;
}

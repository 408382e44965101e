/**
 * What an error from the S3 backend says, read from its shape instead of `instanceof
 * S3ServiceException`: the AWS SDK loads only when an s3:// store is first used (lazy-s3.ts), and
 * code judging an error from a folder must not load it to learn the error is not S3's. The shape
 * is the one the SDK's own `ServiceException.isInstance` checks: a `$fault` of client or server
 * and `$metadata`, on every error that carries the server's answer.
 */
import { z } from 'zod';

const S3ServiceError = z.object({
  name: z.string(),
  $fault: z.enum(['client', 'server']),
  $metadata: z.object({ httpStatusCode: z.number().optional() }),
});

export interface S3Failure {
  /** The S3 error code (NoSuchBucket, AccessDenied, ...). */
  readonly name: string;
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
}

/** The S3 server's answer in `error`; undefined for anything else (a local or network error). */
export function s3FailureOf(error: unknown): S3Failure | undefined {
  const parsed = S3ServiceError.safeParse(error);
  return parsed.success
    ? { name: parsed.data.name, status: parsed.data.$metadata.httpStatusCode }
    : undefined;
}

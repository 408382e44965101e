/**
 * How a store's errors are named for the failure policy (activities/failure-kind.ts): a bucket
 * that refuses us stops the campaign, a server restarting is retried, never the other way round.
 */
import { S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { localFailureKind, passingStoreError } from '../../activities/failure-kind.ts';

const s3Error = (name: string, status: number) =>
  new S3ServiceException({
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });
const errno = (code: string) => Object.assign(new Error(code), { code });

describe('store errors', () => {
  it.each([
    ['S3 AccessDenied (403)', s3Error('AccessDenied', 403), 'output_unwritable', false],
    ['S3 NoSuchBucket (404)', s3Error('NoSuchBucket', 404), 'output_unwritable', false],
    ['S3 InternalError (500)', s3Error('InternalError', 500), null, true],
    ['S3 SlowDown (503)', s3Error('SlowDown', 503), null, true],
    ['a refused connection (server restarting)', errno('ECONNREFUSED'), null, true],
    ['a reset connection', errno('ECONNRESET'), null, true],
    ['a full disk', errno('ENOSPC'), 'disk_full', false],
    ['a read-only folder', errno('EROFS'), 'output_unwritable', false],
    ['a missing file', errno('ENOENT'), null, false],
  ])('%s: kind %s, passing %s', (_what, error, kind, passing) => {
    expect(localFailureKind(error)).toBe(kind);
    expect(passingStoreError(error)).toBe(passing);
  });
});

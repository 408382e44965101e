import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { failureKindOf } from '../../activities/failure-kind.ts';
import { retryableFailure } from '../../activities/service-failure.ts';
import { ServiceError } from '../../api/client/errors.ts';
import { ShortWrite } from '../../records/jsonl.ts';

// What each kind does to a job and the campaign is asserted through the reducer
// (step.test.ts, "what a failure does"); here, how failures are named where they are seen.
describe('service failures', () => {
  const refused = (status: number, code: string, retryable = false) =>
    new ServiceError({ message: code, status, type: 'invalid_request', code, retryable });
  it.each([
    [refused(402, 'INSUFFICIENT_CREDITS'), 'insufficient_credits'],
    [refused(422, 'INVALID_INPUT'), 'rejected'],
    [refused(422, 'SOMETHING_NEW'), 'rejected'],
    [refused(401, 'UNAUTHORIZED'), 'authentication_failed'],
    [refused(503, 'UNAVAILABLE', true), 'transient'],
    // A download that ran out of its bounded fetches (activities/download-bounds.ts), and an
    // output the service no longer has (activities/finish/fresh-link.ts).
    [refused(0, 'DOWNLOAD_SHORT'), 'download_failed'],
    [refused(0, 'DOWNLOAD_STALLED'), 'download_stalled'],
    [refused(0, 'OUTPUT_EXPIRED'), 'output_expired'],
  ])('%s is named %s', (error, kind) => {
    expect(failureKindOf(error)).toBe(kind);
  });
});

describe('local write failures', () => {
  it.each([
    ['ENOSPC', 'disk_full'],
    ['EDQUOT', 'disk_full'],
    ['EROFS', 'output_unwritable'],
    ['EACCES', 'output_unwritable'],
  ])('%s stops the campaign as %s, never retried', (code, kind) => {
    const failure = retryableFailure(Object.assign(new Error(`${code}: write`), { code }));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: kind, nonRetryable: true });
  });

  // A claims or manifest line that lands short on a full disk throws ShortWrite, which has no
  // errno: found by `npm run drill -- disk-full` retrying it forever (docs/benchmarks.md).
  it('a line written short (a full disk) stops the campaign as disk_full, never retried', () => {
    const failure = retryableFailure(new ShortWrite('/out/.mediaflow/claims/c.jsonl', 144, 186));
    expect(failure).toMatchObject({ type: 'disk_full', nonRetryable: true });
  });
});

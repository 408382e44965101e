import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { failureKindOf, isOutage } from '../../activities/failure-kind.ts';
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
    // Content refusals, ours and the ways other services say them: the step's on_refusal decides.
    [refused(400, 'CONTENT_REFUSED'), 'refused'],
    [refused(400, 'content_policy_violation'), 'refused'],
    [refused(422, 'NSFW_CONTENT'), 'refused'],
    [refused(400, 'SAFETY_FILTER'), 'refused'],
    [
      new ServiceError({
        message: 'x',
        status: 400,
        type: 'content_policy_error',
        code: 'X',
        retryable: false,
      }),
      'refused',
    ],
    // Refusals of our own making are not the service's content policy.
    [refused(410, 'DOWNLOAD_REFUSED'), 'rejected'],
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

describe('an outage (service_unavailable)', () => {
  const down = (status: number | null, type: string, code: string, extra: object = {}) =>
    new ServiceError({ message: code, status, type, code, retryable: true, ...extra });
  it.each([
    ['503 at the 4th attempt', down(503, 'api_error', 'SERVICE_UNAVAILABLE'), 4, true],
    ['connection refused at the 4th attempt', down(null, 'network_error', 'ECONNREFUSED'), 4, true],
    ['a timeout at the 6th attempt', down(null, 'timeout_error', 'TIMEOUT'), 6, true],
    // A blip: the activity retries it itself.
    ['503 at the 3rd attempt', down(503, 'api_error', 'SERVICE_UNAVAILABLE'), 3, false],
    // A 429 is pacing, never an outage; a final refusal is the job's own.
    [
      '429 at the 9th attempt',
      down(429, 'rate_limit_error', 'RATE_LIMITED', { rateLimited: true }),
      9,
      false,
    ],
    [
      '422 at the 9th attempt',
      new ServiceError({ message: 'x', status: 422, type: 'invalid_request', code: 'X', retryable: false }),
      9,
      false,
    ],
  ])('%s: %s', (_name, error, attempt, outage) => {
    expect(isOutage(error, attempt)).toBe(outage);
  });
});

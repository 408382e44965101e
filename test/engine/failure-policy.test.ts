import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { retryableFailure } from '../../activities/service-failure.ts';
import { CREATE_GAVE_UP, kindOfRejection } from '../../contract/failure-policy.ts';
import { ShortWrite } from '../../records/jsonl.ts';

// What each kind does to a job and the campaign is asserted through the reducer
// (step.test.ts, "what a failure does"); here, how failures are named where they are seen.
describe('failure policy', () => {
  it.each([
    ['INSUFFICIENT_CREDITS', 'insufficient_credits'],
    [CREATE_GAVE_UP, 'create_gave_up'],
    ['INVALID_INPUT', 'rejected'],
    ['SOMETHING_NEW', 'rejected'],
  ])('a create refused with %s is %s', (code, kind) => {
    expect(kindOfRejection(code)).toBe(kind);
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

import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { retryableFailure } from '../../activities/service-failure.ts';
import {
  CREATE_GAVE_UP,
  effectOf,
  type FailureKind,
  kindOfRejection,
} from '../../contract/failure-policy.ts';
import { ShortWrite } from '../../records/jsonl.ts';

describe('failure policy', () => {
  it.each<[FailureKind, string]>([
    ['rate_limited', 'requeue'],
    ['transient', 'retry_attempt'],
    ['insufficient_credits', 'stop_campaign'],
    ['rejected', 'fail_job'],
    ['create_gave_up', 'fail_job'],
    ['prediction_failed', 'regenerate'],
    ['finish_gave_up', 'regenerate'],
    ['parent_missing', 'skip_job'],
    ['disk_full', 'stop_campaign'],
    ['output_unwritable', 'stop_campaign'],
    ['plan_unreadable', 'stop_campaign'],
    ['authentication_failed', 'stop_campaign'],
  ])('%s → %s', (kind, effect) => {
    expect(effectOf(kind).kind).toBe(effect);
  });

  it.each<[FailureKind, string, string]>([
    // The job that met an empty balance fails, as it always has (histories hold such runs).
    ['insufficient_credits', 'balance_exhausted', 'fail'],
    // The user can fix these: the job stays for the next run, which pays nothing twice.
    ['disk_full', 'disk_full', 'keep'],
    ['output_unwritable', 'output_unwritable', 'keep'],
    ['plan_unreadable', 'plan_unreadable', 'keep'],
    ['authentication_failed', 'authentication_failed', 'keep'],
  ])('%s stops the campaign as %s and the job is %s', (kind, outcome, job) => {
    expect(effectOf(kind)).toEqual({ kind: 'stop_campaign', outcome, job });
  });

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

  // KNOWN BUG, found by `npm run drill -- disk-full` (docs/benchmarks.md): a claims or manifest
  // line that lands short on a full disk throws ShortWrite, which has no errno, so it is retried
  // forever (a finish naming an heir reached attempt 32 with the campaign still running 4 minutes
  // after the disk filled). Drop `.fails` once localFailureKind (activities/failure-kind.ts) names
  // a ShortWrite disk_full.
  it('a line written short (a full disk) stops the campaign as disk_full, never retried', () => {
    const failure = retryableFailure(new ShortWrite('/out/.mediaflow/claims/c.jsonl', 144, 186));
    expect(failure).toMatchObject({ type: 'disk_full', nonRetryable: true });
  });
});

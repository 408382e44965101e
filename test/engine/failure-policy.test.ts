import { describe, expect, it } from 'vitest';
import {
  CREATE_GAVE_UP,
  effectOf,
  type FailureKind,
  kindOfRejection,
} from '../../contract/failure-policy.ts';

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
  ])('%s → %s', (kind, effect) => {
    expect(effectOf(kind).kind).toBe(effect);
  });

  it('an empty balance stops the campaign as balance_exhausted', () => {
    expect(effectOf('insufficient_credits')).toEqual({ kind: 'stop_campaign', outcome: 'balance_exhausted' });
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

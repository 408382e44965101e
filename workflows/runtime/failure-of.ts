/**
 * The failure-policy kind an activity failure carries (activities/service-failure.ts names it as
 * the ApplicationFailure's type), or null for failures that are not one of its kinds (older
 * histories hold only those, so they keep their old effect).
 */
import { ApplicationFailure } from '@temporalio/workflow';
import {
  effectOf,
  type FailureEffect,
  type FailureKind,
  isFailureKind,
} from '../../contract/failure-policy.ts';

export function kindOfFailure(error: unknown): FailureKind | null {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure && isFailureKind(current.type)) return current.type;
    current = current.cause;
  }
  return null;
}

/** The stop an activity failure calls for, with the failure's own words; null when it calls for none. */
export function stopOf(
  error: unknown,
): { readonly effect: Extract<FailureEffect, { kind: 'stop_campaign' }>; readonly message: string } | null {
  const kind = kindOfFailure(error);
  const effect = kind === null ? null : effectOf(kind);
  if (effect?.kind !== 'stop_campaign') return null;
  return { effect, message: messageOf(error) };
}

export function messageOf(error: unknown): string {
  let current: unknown = error;
  // Activity failures wrap the activity's own error: report the innermost message.
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}

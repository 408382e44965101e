/**
 * The failure-policy kind an activity failure carries (activities/service-failure.ts names it as
 * the ApplicationFailure's type), or null for failures that are not one of its kinds (older
 * histories hold only those, so they keep their old effect). What a kind calls for is the
 * engine's to say (engine/money/stop.ts, stopFor): the runtime only reads the error.
 */
import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { type FailureKind, isFailureKind } from '../contract/failure-policy.ts';
import type { Lost } from './engine/events.ts';

export function kindOfFailure(error: unknown): FailureKind | null {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure && isFailureKind(current.type)) return current.type;
    current = current.cause;
  }
  return null;
}

export function messageOf(error: unknown): string {
  let current: unknown = error;
  // Activity failures wrap the activity's own error: report the innermost message.
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}

/** A failure of an activity, as `step` takes it (null: canceled with the campaign). */
export function lostOf(error: unknown): Lost | null {
  if (isCancellation(error)) return null;
  return { failure: kindOfFailure(error), message: messageOf(error) };
}

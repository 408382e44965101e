/**
 * When waiting takes time out (their step's `timeout`), and what a timeout decides: the earliest
 * deadline the runtime's review timer waits for, kept known between gate changes, and the takes
 * past theirs, decided by `on_timeout` and recorded as such.
 */
import type { StepInfo } from '../../../contract/campaign.ts';
import type { DecisionRecord } from '../../../contract/review.ts';
import { deadlineOf, ruleOf, timesOut } from './review-rules.ts';
import { accept, type ReviewsState } from './reviews.ts';

/**
 * Earliest campaign-clock time a waiting take times out, or null, read without changing anything:
 * what the runtime's review timer waits for (the tick keeps it known, `deadline`).
 */
export function dueAt(r: ReviewsState, steps: readonly StepInfo[]): number | null {
  return r.earliestKnown ? r.earliest : earliestDeadline(r, steps);
}

/** The same, kept known until a gate changes: the tick asks at every turn of the loop. */
export function deadline(r: ReviewsState, steps: readonly StepInfo[]): number | null {
  if (r.earliestKnown) return r.earliest;
  r.earliest = earliestDeadline(r, steps);
  r.earliestKnown = true;
  return r.earliest;
}

function earliestDeadline(r: ReviewsState, steps: readonly StepInfo[]): number | null {
  let earliest: number | null = null;
  if (!timesOut(steps)) return earliest;
  for (const gate of Object.values(r.gates)) {
    const due = deadlineOf(gate, ruleOf(steps, gate));
    if (due !== null && (earliest === null || due < earliest)) earliest = due;
  }
  return earliest;
}

/** Takes whose timeout has passed: decided by their step's `on_timeout`, recorded as such. */
export function timeOut(
  r: ReviewsState,
  steps: readonly StepInfo[],
  now: number,
  at: string,
  cursor: number,
): DecisionRecord[] {
  const records: DecisionRecord[] = [];
  for (const gate of Object.values(r.gates)) {
    const rule = ruleOf(steps, gate);
    const due = deadlineOf(gate, rule);
    if (due === null || due > now || !rule) continue;
    records.push({ key: gate.key, action: rule.onTimeout, take: gate.take, at, source: 'timeout' });
    accept(r, gate, rule.onTimeout, cursor, undefined);
  }
  return records;
}

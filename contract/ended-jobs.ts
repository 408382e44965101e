/**
 * Jobs of a step that reached an end (succeeded, cached, failed, skipped, canceled, refused, timed
 * out): they run again only as a retake. One definition for the workflow's progress and the
 * clients' figures. No zod here: the workflow bundle loads this file.
 */
import type { StepCounts } from './progress.ts';

export function endedOf(c: StepCounts): number {
  return c.succeeded + c.cached + c.failed + c.skipped + c.canceled + (c.refused ?? 0) + (c.timed_out ?? 0);
}

/**
 * Which activity is creating: `<workflow run id>/<activity id>`, the same string through every
 * retry of one activity. A claim records it (claims.ts, made_by), so the run that made a
 * prediction tells its own earlier creates from a re-run's leftovers.
 */
import type { Info } from '@temporalio/activity';

export function attemptOf(info: Info): string {
  // A standalone activity (started by no workflow) has a run id of its own instead.
  return `${info.workflowExecution?.runId ?? info.activityRunId}/${info.activityId}`;
}

/**
 * Whether two attempts belong to one workflow run: a create of the same take by another activity
 * of the run (an heir sent back to the queue when the finish batch that created it was lost) is
 * as much the take's as a retry of the activity that made it.
 */
export function sameRun(a: string | undefined, b: string): boolean {
  return a !== undefined && a.slice(0, a.lastIndexOf('/')) === b.slice(0, b.lastIndexOf('/'));
}

/**
 * Which activity is creating: the same string through every retry of one activity, and different
 * for any other (another run of the campaign, a re-run, another job's finish). A claim records it
 * (claims.ts, made_by), so a retry tells its own earlier creates from a re-run's leftovers.
 */
import type { Info } from '@temporalio/activity';

export function attemptOf(info: Info): string {
  // A standalone activity (started by no workflow) has a run id of its own instead.
  return `${info.workflowExecution?.runId ?? info.activityRunId}/${info.activityId}`;
}

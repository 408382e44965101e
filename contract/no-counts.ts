/**
 * A step's counts before any of its jobs ran: the workflow's tally starts from it and a client shows
 * it for a campaign no worker has picked up yet, so the two can never disagree on what "nothing"
 * is. No zod here: the workflow bundle loads this file.
 */
import type { StepCounts } from './progress.ts';

export function noCounts(): StepCounts {
  return {
    succeeded: 0,
    cached: 0,
    failed: 0,
    skipped: 0,
    canceled: 0,
    created: 0,
    regenerated: 0,
    refused: 0,
    timed_out: 0,
  };
}

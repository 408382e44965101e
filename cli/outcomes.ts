/**
 * What each outcome of a campaign says to the user, and for the stops a user can fix, what to do
 * (one line each: `run` prints it and exits non-zero, `status` shows it).
 */
import type { CampaignOutcome } from '../contract/campaign.ts';

interface OutcomeText {
  readonly says: string;
  readonly fix?: string;
}

export const OUTCOMES: Readonly<Record<CampaignOutcome, OutcomeText>> = {
  running: { says: 'Running' },
  completed: { says: 'Completed' },
  budget_reached: { says: 'Stopped at the budget (in-flight work finished, nothing more submitted)' },
  balance_exhausted: {
    says: 'Stopped: the account ran out of credits',
    fix: 'add credits, then run the same spec again (finished jobs are not paid again)',
  },
  canceled: { says: 'Canceled (everything already downloaded is kept)' },
  disk_full: {
    says: 'Stopped: the output disk is full',
    fix: 'free space (or move output.dir), then run the same spec again: nothing is paid twice',
  },
  output_unwritable: {
    says: 'Stopped: the output folder cannot be written',
    fix: 'make output.dir writable by the worker, then run the same spec again: nothing is paid twice',
  },
  plan_unreadable: {
    says: 'Stopped: a worker cannot read the plan',
    fix: 'give every worker the output folder at the same path, or put outputs in a bucket (output.dir: s3://…; docs/deployment.md), then run again',
  },
  authentication_failed: {
    says: 'Stopped: the service refused the API key (deleted or rotated)',
    fix: 'set MEDIAFLOW_API_KEY to a valid key for the worker, then run the same spec again: nothing is paid twice',
  },
};

/** For a stop the user can fix, one line: the failure's own words and what to do; else null. */
export function stopAdvice(outcome: CampaignOutcome, stopMessage?: string | null): string | null {
  const { fix } = OUTCOMES[outcome];
  if (!fix) return null;
  return `${stopMessage ? `${stopMessage}. ` : ''}To go on: ${fix}`;
}

/** One line for a stop before anything ran: what is wrong, in the check's words, and the fix. */
export function stopLine(
  outcome: 'plan_unreadable' | 'output_unwritable' | 'disk_full',
  message: string,
): string {
  return `${OUTCOMES[outcome].says.replace(/^Stopped: /, '')}: ${message}. To go on: ${OUTCOMES[outcome].fix}`;
}

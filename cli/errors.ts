/**
 * How the CLI reports a failure: one line on stderr and exit 1, never a stack trace unless asked
 * for with DEBUG=mediaflow. Errors the user can act on (UserError and the configuration errors of
 * other modules) say what to do; anything else is named as unexpected, since it is a bug.
 */
import { NewerEngineError, PlanMismatchError } from '../control/campaign.ts';
import { HandoverError } from '../control/handover.ts';
import { CampaignEndedError } from '../review/campaign.ts';
import { missingAwsSetting } from './aws-settings.ts';
import { debugEnabled } from './debug.ts';
import { ConfigurationError, type Environment } from './environment.ts';
import { command } from './invocation.ts';

export class UserError extends Error {
  /** What to do about it, said after the problem on the same line. */
  readonly hint: string | undefined;

  constructor(message: string, hint?: string) {
    super(message);
    this.hint = hint;
  }
}

/** A campaign name nothing on the server knows (`status`, `cancel`, `export`, the review commands): the campaign name is the spec's `campaign:` field. */
export function unknownCampaign(env: Environment, campaign: string): UserError {
  return new UserError(
    `no campaign named "${campaign}" on ${env.temporalAddress} (namespace ${env.namespace})`,
    `the name is a spec's campaign: field, and ${command('run', '<spec>')} starts it`,
  );
}

export function errorLine(error: unknown): string {
  if (error instanceof UserError) return error.hint ? `${error.message}; ${error.hint}` : error.message;
  if (error instanceof PlanMismatchError) {
    return `${error.message}; wait for it to finish, or stop it with: ${command('cancel', error.campaign)}`;
  }
  if (
    error instanceof ConfigurationError ||
    error instanceof NewerEngineError ||
    error instanceof HandoverError ||
    error instanceof CampaignEndedError
  )
    return error.message;
  const missing = missingAwsSetting(error);
  if (missing !== null) return missing;
  const message = error instanceof Error ? error.message : String(error);
  return `unexpected error: ${message.split('\n')[0]} (DEBUG=mediaflow shows the stack trace)`;
}

export function reportError(error: unknown, env: NodeJS.ProcessEnv = process.env): void {
  process.stderr.write(`mediaflow: ${errorLine(error)}\n`);
  if (debugEnabled(env)) process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
}

/** Parsers of command-line option values shared by the commands (commander's argParser). */
import { type Command, InvalidArgumentError, Option } from 'commander';

/** A count of something: a whole number of at least 1. */
export function wholeNumber(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    throw new InvalidArgumentError(`expected a whole number above 0, got "${value}"`);
  return count;
}

/** What every command that reads a spec accepts (validate, plan, estimate, run). */
export interface SpecOptions {
  readonly json?: boolean;
  /** Folders besides the spec's own that local image inputs may be read from. */
  readonly allowInputRoot?: readonly string[];
  /** Folders besides the spec's own that output.dir may be in. */
  readonly allowOutputRoot?: readonly string[];
  /** The most jobs the spec's limits may allow, past what a spec may set itself. */
  readonly maxJobs?: number;
}

export function withSpecOptions(command: Command): Command {
  return command
    .option(
      '--allow-input-root <dir>',
      "also read local image inputs from this folder (repeatable; by default only from under the spec's folder)",
      (dir: string, dirs: readonly string[]) => [...dirs, dir],
      [],
    )
    .option(
      '--allow-output-root <dir>',
      "let output.dir be in this folder (repeatable; by default only under the spec's folder)",
      (dir: string, dirs: readonly string[]) => [...dirs, dir],
      [],
    )
    .option(
      '--max-jobs <n>',
      'let the spec’s limits reach this many jobs (a spec alone may not pass 1,000,000: plans are built in memory, about 1 KB a job)',
      wholeNumber,
    );
}

/**
 * `--task-queue`, or MEDIAFLOW_TASK_QUEUE when it is not given: one setting for the `run`s and the
 * `worker`s of a deployment. Teams (or accounts) sharing one Temporal namespace each set their
 * own, so a worker never runs, and never pays with its API key for, another team's campaign.
 */
export function taskQueueOption(description: string, fallback?: string): Option {
  const option = new Option('--task-queue <name>', description).env('MEDIAFLOW_TASK_QUEUE');
  return fallback === undefined ? option : option.default(fallback);
}

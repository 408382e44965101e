/** Parsers of command-line option values shared by the commands (commander's argParser). */
import { type Command, InvalidArgumentError } from 'commander';

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
}

export function withSpecOptions(command: Command): Command {
  return command.option(
    '--allow-input-root <dir>',
    "also read local image inputs from this folder (repeatable; by default only from under the spec's folder)",
    (dir: string, dirs: readonly string[]) => [...dirs, dir],
    [],
  );
}

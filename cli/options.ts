/** Parsers of command-line option values shared by the commands (commander's argParser). */
import { InvalidArgumentError } from 'commander';

/** A count of something: a whole number of at least 1. */
export function wholeNumber(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    throw new InvalidArgumentError(`expected a whole number above 0, got "${value}"`);
  return count;
}

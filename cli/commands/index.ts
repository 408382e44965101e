import type { Command } from 'commander';

/** Each command module exports one `register(program)`; the order here is the order in --help. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [];

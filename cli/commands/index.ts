import type { Command } from 'commander';
import { register as emulator } from './emulator.ts';

/** Each command module exports one `register(program)`; the order here is the order in --help. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [emulator];

import type { Command } from 'commander';

/** A command module: it exports one `register(program)`. */
type CommandModule = { register(program: Command): void };

interface CommandEntry {
  /** The top-level command names the module registers. */
  readonly names: readonly string[];
  readonly load: () => Promise<CommandModule>;
}

/**
 * Every command, in --help order, loaded on demand: main.ts loads only the module of the command
 * being run, so `mediaflow worker` never loads the emulator, review server or plan loader of the
 * others (what that saves of the worker's memory: docs/engine.md, "Memory").
 */
export const COMMANDS: readonly CommandEntry[] = [
  { names: ['validate'], load: () => import('./validate.ts') },
  { names: ['plan'], load: () => import('./plan.ts') },
  { names: ['estimate'], load: () => import('./estimate.ts') },
  { names: ['run'], load: () => import('./run.ts') },
  { names: ['status'], load: () => import('./status.ts') },
  { names: ['review'], load: () => import('./review.ts') },
  { names: ['review-link'], load: () => import('./review-link.ts') },
  { names: ['approve', 'reject', 'regenerate'], load: () => import('./decide.ts') },
  { names: ['report'], load: () => import('./report.ts') },
  { names: ['cancel'], load: () => import('./cancel.ts') },
  { names: ['audit'], load: () => import('./audit.ts') },
  { names: ['caps'], load: () => import('./caps.ts') },
  { names: ['export'], load: () => import('./export.ts') },
  { names: ['verify'], load: () => import('./verify.ts') },
  { names: ['worker'], load: () => import('./worker.ts') },
  { names: ['stack'], load: () => import('./stack.ts') },
  { names: ['models'], load: () => import('./models.ts') },
  { names: ['schema'], load: () => import('./schema.ts') },
  { names: ['emulator'], load: () => import('./emulator.ts') },
];

/**
 * The commands to register for `args` (argv after the script): the one named first, or all of them
 * for anything else (--help, --version, a mistyped name that commander answers with suggestions).
 */
export function commandsFor(args: readonly string[]): readonly CommandEntry[] {
  const named = COMMANDS.filter((entry) => entry.names.includes(args[0] ?? ''));
  return named.length > 0 ? named : COMMANDS;
}

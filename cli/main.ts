/**
 * The `mediaflow` command. Each subcommand lives in its own file under commands/ and registers
 * itself on the program; this file only assembles them.
 */
import { Command } from 'commander';
import { COMMANDS } from './commands/index.ts';

const program = new Command('mediaflow')
  .description('Run batch AI media campaigns durably on Temporal, within budget and rate limits.')
  .showHelpAfterError()
  .enablePositionalOptions();

for (const register of COMMANDS) register(program);

await program.parseAsync(process.argv);

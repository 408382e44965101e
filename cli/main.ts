/**
 * The `mediaflow` command. Each subcommand lives in its own file under commands/ and registers
 * itself on the program; this file only assembles them.
 */
import { Command } from 'commander';
import { PlanMismatchError } from '../worker/campaign-control.ts';
import { COMMANDS } from './commands/index.ts';
import { ConfigurationError } from './environment.ts';

const program = new Command('mediaflow')
  .description('Run batch AI media campaigns durably on Temporal, within budget and rate limits.')
  .showHelpAfterError()
  .enablePositionalOptions();

for (const register of COMMANDS) register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Problems a user can act on are said in one line; anything else is a bug worth its stack.
  if (error instanceof ConfigurationError || error instanceof PlanMismatchError) {
    console.error(`mediaflow: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exitCode = 1;
}

/**
 * The `mediaflow` command. Each subcommand lives in its own file under commands/ and registers
 * itself on the program; this file only assembles them and reports what fails (cli/errors.ts).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { z } from 'zod';
import { commandsFor } from './commands/index.ts';
import { reportError } from './errors.ts';

const PackageJson = z.object({ version: z.string() });
const { version } = PackageJson.parse(
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')),
);

const program = new Command('mediaflow')
  .description('Run batch AI media campaigns durably on Temporal, within budget and rate limits.')
  .version(version, '-V, --version', 'print the version')
  // Commander's own errors (unknown option, missing argument) in the same one-line form as ours.
  .configureOutput({
    outputError: (text, write) => {
      const message = text
        .replace(/^error: /, '')
        .trim()
        .replace(/\s*\n\s*/g, ' ');
      write(`mediaflow: ${message} (add --help for usage)\n`);
    },
  })
  .enablePositionalOptions();

for (const entry of commandsFor(process.argv.slice(2))) (await entry.load()).register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  reportError(error);
  process.exitCode = 1;
}

/**
 * `mediaflow schema`: prints the spec's JSON Schema (specs/campaign.schema.json), so a spec in any
 * folder can point its editor at it: `mediaflow schema > campaign.schema.json` beside the spec.
 */
import type { Command } from 'commander';
import { campaignJsonSchemaText } from '../../plan/json-schema.ts';

export function register(program: Command): void {
  program
    .command('schema')
    .description("Print the campaign spec's JSON Schema (for editors: yaml-language-server's $schema)")
    .action(() => {
      process.stdout.write(campaignJsonSchemaText());
    });
}

/**
 * The spec file a command was given, checked before the planner reads it: a directory or a
 * missing path is the user's slip, worth one plain sentence rather than a problem at 1:1 quoting
 * EISDIR or ENOENT.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type PlanOptions, type PlanResult, planCampaign } from '../plan/index.ts';
import { UserError } from './errors.ts';

export async function planSpecFile(spec: string, options: PlanOptions = {}): Promise<PlanResult> {
  checkSpecFile(spec);
  return planCampaign(spec, options);
}

export function checkSpecFile(spec: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(spec).isDirectory();
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    throw new UserError(
      `${spec} does not exist; give a campaign YAML file`,
      `paths are relative to ${process.cwd()}`,
    );
  }
  if (!isDirectory) return;
  const specs = yamlFilesIn(spec);
  throw new UserError(
    `${spec} is a directory; give a campaign YAML file`,
    specs.length > 0 ? `it holds ${listed(specs.map((name) => join(spec, name)))}` : undefined,
  );
}

function listed(names: readonly string[]): string {
  return names.length > 3 ? `${names.slice(0, 3).join(', ')}, …` : names.join(', ');
}

function yamlFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => /\.ya?ml$/.test(name))
      .sort();
  } catch {
    return [];
  }
}

/** Writes a spec (and optional side files) into a fresh temp folder and plans it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type PlanResult, planCampaign } from '../../plan/index.ts';

export function writeSpec(yaml: string, files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mediaflow-spec-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  const file = path.join(dir, 'campaign.yaml');
  writeFileSync(file, yaml);
  return file;
}

export async function planText(
  yaml: string,
  files: Record<string, string | Buffer> = {},
): Promise<PlanResult> {
  return planCampaign(writeSpec(yaml, files));
}

/** Plans and fails the test with the problems when the spec is refused. */
export async function planOk(yaml: string, files: Record<string, string | Buffer> = {}) {
  const result = await planText(yaml, files);
  if (!result.ok)
    throw new Error(result.problems.map((p) => `${p.line}:${p.column}: ${p.message}`).join('\n'));
  return result.plan;
}

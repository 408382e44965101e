/**
 * The claims logs: `<output>/.mediaflow/claims/<campaign>.jsonl`, one line per prediction a
 * campaign created, written right after the service answered. One file per campaign, because two
 * campaigns may share an output folder and `cancel` must stop only its own. They serve two rescues:
 *  - reconciling a "maybe created" request: a prediction found on the service that another create
 *    (of any campaign in the folder) already claimed is not ours;
 *  - cancel: every prediction its campaign claimed that is not in the manifest may still be running.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { appendLines, isMissing, type LineWriter, nodeWriter, readLines } from './jsonl.ts';
import { stateDirOf } from './plan-store.ts';

export const Claim = z.object({
  campaign: z.string(),
  prediction_id: z.string(),
  key: z.string(),
  regen: z.number().int().nonnegative(),
  /** The Idempotency-Key the create sent (create/keys.ts): the claim's owner, as reconciliation compares it. */
  idempotency_key: z.string(),
});
export type Claim = z.infer<typeof Claim>;

function claimsDir(outputDir: string): string {
  return join(stateDirOf(outputDir), 'claims');
}

/** Campaign names are safe file names (plan/schema.ts, SAFE_NAME). */
export function claimsFile(outputDir: string, campaign: string): string {
  return join(claimsDir(outputDir), `${campaign}.jsonl`);
}

/** A claim as a create makes it; the campaign is the file's. */
export type NewClaim = Omit<Claim, 'campaign'>;

export async function appendClaims(
  outputDir: string,
  campaign: string,
  claims: readonly NewClaim[],
  writer: LineWriter = nodeWriter,
): Promise<void> {
  if (claims.length === 0) return;
  await mkdir(claimsDir(outputDir), { recursive: true });
  const lines = claims.map((claim) => JSON.stringify(Claim.parse({ campaign, ...claim })));
  appendLines(claimsFile(outputDir, campaign), lines, writer);
}

/** The claims of one campaign. */
export function readClaims(outputDir: string, campaign: string): Promise<Claim[]> {
  return readLines(claimsFile(outputDir, campaign), Claim);
}

/** The claims of every campaign writing to this folder. */
export async function readAllClaims(outputDir: string): Promise<Claim[]> {
  let names: string[];
  try {
    names = await readdir(claimsDir(outputDir));
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const files = names.filter((name) => name.endsWith('.jsonl'));
  return (await Promise.all(files.map((name) => readLines(join(claimsDir(outputDir), name), Claim)))).flat();
}

/**
 * The claims log: `<output>/.mediaflow/claims.jsonl`, one line per prediction this campaign
 * created, written right after the service answered. It serves two rescues:
 *  - reconciling a "maybe created" request: a prediction found on the service that another job
 *    already claimed is not ours;
 *  - cancel: every claimed prediction that is not in the manifest may still be running upstream.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stateDirOf } from './plan-store.ts';

export interface Claim {
  readonly prediction_id: string;
  readonly key: string;
  readonly regen: number;
}

function claimsFile(outputDir: string): string {
  return join(stateDirOf(outputDir), 'claims.jsonl');
}

export async function appendClaims(outputDir: string, claims: readonly Claim[]): Promise<void> {
  if (claims.length === 0) return;
  await mkdir(stateDirOf(outputDir), { recursive: true });
  const fd = openSync(claimsFile(outputDir), 'a+');
  try {
    // A torn last line (power loss mid-write) must not swallow the first claim written after it.
    const size = fstatSync(fd).size;
    const lastByte = Buffer.alloc(1);
    const torn = size > 0 && readSync(fd, lastByte, 0, 1, size - 1) === 1 && lastByte[0] !== 0x0a;
    writeSync(fd, `${torn ? '\n' : ''}${claims.map((claim) => `${JSON.stringify(claim)}\n`).join('')}`);
  } finally {
    closeSync(fd);
  }
}

export async function readClaims(outputDir: string): Promise<Claim[]> {
  let text: string;
  try {
    text = await readFile(claimsFile(outputDir), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    try {
      return line ? [JSON.parse(line) as Claim] : [];
    } catch {
      return [];
    }
  });
}

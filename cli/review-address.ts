/**
 * Where a running `mediaflow review` serves a scope (a campaign, or the inbox), kept in the stack's
 * state while it runs, so `review-link` prints a whole link instead of one with `<port>` in it.
 * The file names the server's process: one that is gone leaves a file that is ignored.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { parseJson } from '../records/jsonl.ts';
import { stateDirOf } from './state-home.ts';

const Serving = z.object({ origin: z.string(), pid: z.number().int() });

const fileOf = (scope: string) => join(stateDirOf(), 'review-links', `${scope}.serving.json`);

/** Says where this process serves `scope`; the returned function forgets it again. */
export async function announceServing(scope: string, origin: string): Promise<() => Promise<void>> {
  const file = fileOf(scope);
  await writeFile(file, `${JSON.stringify({ origin, pid: process.pid })}\n`, { mode: 0o600 });
  return () => rm(file, { force: true });
}

/** The origin a running review server serves `scope` on, or null when none runs. */
export async function servingOrigin(scope: string): Promise<string | null> {
  const text = await readFile(fileOf(scope), 'utf8').catch(() => null);
  const parsed = text === null ? null : Serving.safeParse(parseJson(text));
  if (!parsed?.success) return null;
  try {
    process.kill(parsed.data.pid, 0);
    return parsed.data.origin;
  } catch {
    return null;
  }
}

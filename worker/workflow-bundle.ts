/**
 * The workflow code, bundled once per process. webpack runs in a short-lived child process, so
 * its few hundred megabytes never stay in a long-running worker's heap (measured: a worker that
 * bundled in-process sat at 335 MiB before its first task).
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { WorkflowBundlePath } from '@temporalio/worker';

const BUNDLER = fileURLToPath(new URL('./bundle-workflows.ts', import.meta.url));
/**
 * tsx's loader, resolved from here: the child may start in any folder. Through require.resolve,
 * not import.meta.resolve, which vitest's module runner lacks (the test suite bundles once in its
 * global setup); tsx exports one file to both.
 */
const TSX = createRequire(import.meta.url).resolve('tsx');

let bundle: Promise<WorkflowBundlePath> | undefined;

export function workflowBundle(): Promise<WorkflowBundlePath> {
  bundle ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-workflows-'));
    // Workers of this process may be created from it until the end (tests create several), so it
    // goes when the process does: each start used to leave its 2 MB behind in the temp folder.
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const codePath = join(dir, 'workflows.js');
    await promisify(execFile)(process.execPath, ['--import', TSX, BUNDLER, codePath], { timeout: 120_000 });
    return { codePath };
  })();
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
}

/**
 * The workflow code, bundled once per process. webpack runs in a short-lived child process, so
 * its few hundred megabytes never stay in a long-running worker's heap (docs/benchmarks.md,
 * "Measurements behind the code").
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { WorkflowBundlePath } from '@temporalio/worker';
import { cachedBundle, codeFingerprint, keepBundle } from './bundle-cache.ts';
import { workersTrace } from './tracing/worker-options.ts';

const BUNDLER = fileURLToPath(new URL('./bundle-workflows.ts', import.meta.url));
/** The bundler's flag for the variant with the tracing interceptors. */
const TRACED_FLAG = '--traced';
/**
 * tsx's loader, resolved from here: the child may start in any folder. Through require.resolve,
 * not import.meta.resolve, which vitest's module runner lacks (the test suite bundles once in its
 * global setup); tsx exports one file to both.
 */
const TSX = createRequire(import.meta.url).resolve('tsx');

/** One bundle per process for each variant: with the tracing interceptors, and without. */
const bundles = new Map<boolean, Promise<WorkflowBundlePath>>();

/**
 * A bundle already built from this same code, named by the environment: the test suite builds one
 * in its global setup and every worker process it starts (`mediaflow run`, `mediaflow worker`)
 * takes it instead of bundling again, seconds each. Not for production: a bundle of other code
 * would not replay the histories of this one. A tracing process bundles its own (it holds the
 * workflow interceptors: worker/tracing/workflow-interceptors.ts).
 */
export const PREBUILT_BUNDLE_ENV = 'MEDIAFLOW_WORKFLOW_BUNDLE';

/**
 * The bundle of this code. Given `cacheDir` (a private folder: the CLI's state folder), a bundle an
 * earlier process made of the very same code is taken from there, and a new one is kept there
 * (worker/bundle-cache.ts).
 */
export async function workflowBundle(cacheDir?: string): Promise<WorkflowBundlePath> {
  const traced = await workersTrace();
  const prebuilt = process.env[PREBUILT_BUNDLE_ENV];
  if (prebuilt && !traced) return { codePath: prebuilt };
  let bundle = bundles.get(traced);
  if (!bundle) {
    bundle = bundled(traced, cacheDir);
    bundles.set(traced, bundle);
    bundle.catch(() => bundles.delete(traced));
  }
  return bundle;
}

async function bundled(traced: boolean, cacheDir: string | undefined): Promise<WorkflowBundlePath> {
  const fingerprint = cacheDir === undefined ? null : await codeFingerprint(undefined, traced);
  const cached = fingerprint === null ? null : await cachedBundle(cacheDir!, fingerprint);
  if (cached) return { codePath: cached };
  const dir = await mkdtemp(join(tmpdir(), 'mediaflow-workflows-'));
  // Workers of this process may be created from it until the end (tests create several), so it
  // goes when the process does: each start used to leave its 2 MB behind in the temp folder.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const codePath = join(dir, 'workflows.js');
  const args = ['--import', TSX, BUNDLER, codePath, ...(traced ? [TRACED_FLAG] : [])];
  await promisify(execFile)(process.execPath, args, { timeout: 120_000 });
  if (fingerprint === null) return { codePath };
  // A cache that cannot be written (a full disk) costs the next process a bundling, nothing more.
  const kept = await keepBundle(cacheDir!, fingerprint, await readFile(codePath, 'utf8')).catch(() => null);
  return { codePath: kept ?? codePath };
}

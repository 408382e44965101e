/**
 * One real Temporal dev server for the whole suite (ARCHITECTURE.md decision 1: never a mock).
 * Default limits: a test that needs special dynamic config starts its own with startDevServer.
 * Tests reach it through test/helpers/temporal.ts.
 * Likewise one real S3 server (versitygw, test/helpers/s3.ts) with one bucket; each test writes
 * under a prefix of its own (test/helpers/s3-store.ts).
 * And the workflow code, bundled once: bundling takes about 5 s (webpack in a child process), which
 * every file that starts a worker used to pay again, since each test file runs in a fresh module
 * graph. Workers of the suite get it through test/helpers/temporal.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startS3Server } from '../testkit/s3-server.ts';
import { startDevServer, UNSYNCED_ENV } from '../worker/dev-server.ts';
import { PREBUILT_BUNDLE_ENV, workflowBundle } from '../worker/workflow-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `127.0.0.1:PORT` of the suite's dev server. */
    temporalAddress: string;
    /** The suite's dev server's SQLite file (with its -wal and -shm beside it). */
    temporalDb: string;
    /** The suite's S3 server: its bucket and the AWS SDK environment that reaches it. */
    s3: { bucket: string; env: Readonly<Record<string, string>> };
    /** The path of the suite's workflow bundle (worker/workflow-bundle.ts), built once per run. */
    workflowBundle: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'mediaflow-temporal-'));
  // Every Temporal server of the suite skips fsync (worker/dev-server.ts): this one and those the
  // tests start (drills, restarts), which survive their restarts all the same.
  process.env[UNSYNCED_ENV] = '1';
  const [server, s3, bundle] = await Promise.all([
    startDevServer({ dbFile: join(dir, 'temporal.db'), logFile: join(dir, 'server.log') }),
    startS3Server(),
    workflowBundle(),
  ]);
  project.provide('temporalAddress', server.address);
  project.provide('temporalDb', join(dir, 'temporal.db'));
  project.provide('s3', { bucket: s3.bucket, env: s3.env });
  project.provide('workflowBundle', bundle.codePath);
  // Worker processes the tests start take it too (worker/workflow-bundle.ts): the forks that run
  // the test files are started after this, with this environment.
  process.env[PREBUILT_BUNDLE_ENV] = bundle.codePath;
  // Workers of the suite run workflows on their own thread (the SDK's debugMode) rather than on a
  // workflow thread: the suite creates hundreds of short-lived workers, in its processes and in the
  // commands it types, and each workflow thread costs about 0.75 s of CPU to start (its own copy of
  // the bundle and of protobufjs) against 0.07 s. Only the SDK's watch for a workflow task that
  // blocks is lost, which no test relies on. Workflow threads as users run them: the first test of
  // test/cli/run.int.test.ts, the example campaign CI runs first, and the drills in bench/.
  process.env.TEMPORAL_DEBUG = '1';
  return async () => {
    await Promise.all([server.stop(), s3.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
}

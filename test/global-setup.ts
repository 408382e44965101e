/**
 * One real Temporal dev server for the whole suite (ARCHITECTURE.md decision 1: never a mock).
 * Default limits: a test that needs special dynamic config starts its own with startDevServer.
 * Tests reach it through test/helpers/temporal.ts.
 * Likewise one real S3 server (versitygw, test/helpers/s3.ts) with one bucket; each test writes
 * under a prefix of its own (test/helpers/s3-store.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../worker/dev-server.ts';
import { startS3Server } from './helpers/s3.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `127.0.0.1:PORT` of the suite's dev server. */
    temporalAddress: string;
    /** The suite's S3 server: its bucket and the AWS SDK environment that reaches it. */
    s3: { bucket: string; env: Readonly<Record<string, string>> };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'mediaflow-temporal-'));
  const [server, s3] = await Promise.all([
    startDevServer({ dbFile: join(dir, 'temporal.db'), logFile: join(dir, 'server.log') }),
    startS3Server(),
  ]);
  project.provide('temporalAddress', server.address);
  project.provide('s3', { bucket: s3.bucket, env: s3.env });
  return async () => {
    await Promise.all([server.stop(), s3.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
}

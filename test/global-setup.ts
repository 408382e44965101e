/**
 * One real Temporal dev server for the whole suite (ARCHITECTURE.md decision 1: never a mock).
 * Default limits: a test that needs special dynamic config starts its own with startDevServer.
 * Tests reach it through test/helpers/temporal.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../worker/dev-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `127.0.0.1:PORT` of the suite's dev server. */
    temporalAddress: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'mediaflow-temporal-'));
  const server = await startDevServer({ dbFile: join(dir, 'temporal.db'), logFile: join(dir, 'server.log') });
  project.provide('temporalAddress', server.address);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

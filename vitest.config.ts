import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/longest-first.ts';

/**
 * A test file's name says which project runs it, so no list here needs keeping:
 * - `*.int.test.ts`: integration, with the suite's Temporal dev server, S3 server and workflow
 *   bundle (test/global-setup.ts);
 * - `*.replay.test.ts`: replays recorded histories on the current workflow code; it needs the
 *   bundle and no server (test/bundle-setup.ts);
 * - `*.mocks.test.ts`: mocks a module (vi.mock), so it runs in a process of its own;
 * - any other `*.test.ts`: unit, starting nothing (no server, no child process, no browser).
 * test/architecture/suite-config.test.ts fails on a unit file that reaches for the servers.
 */
export const PROJECT_SUFFIXES = {
  integration: '.int.test.ts',
  replay: '.replay.test.ts',
  'unit-mocks': '.mocks.test.ts',
} as const;

const named = (suffix: string) => `test/**/*${suffix}`;
const SPECIAL = Object.values(PROJECT_SUFFIXES).map(named);

export default defineConfig({
  test: {
    // Most suites wait on emulated latencies, servers and browsers rather than compute: four files
    // at once keep two cores busy (docs/benchmarks.md, "The suite"). The timing-sensitive tests
    // compare rates with each other, not with fixed floors, so the extra load does not fail them.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    // Files share their worker process and its loaded modules (isolate: false): each file no longer
    // pays a fresh process and a fresh import of Temporal, the AWS SDK and fastify, which cost more
    // than most tests themselves. Tests leave no global state behind for this: environment stubs
    // are undone after each test (unstubEnvs), the Temporal runtime installs once per process
    // (bench/lib/quiet-runtime.ts), servers and workers close in onTestFinished.
    isolate: false,
    unstubEnvs: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: SPECIAL } },
      // A module mock (vi.mock) applies to every file that shares the module registry: a file that
      // mocks gets a registry, and a process, of its own.
      {
        extends: true,
        test: { name: 'unit-mocks', include: [named(PROJECT_SUFFIXES['unit-mocks'])], isolate: true },
      },
      {
        extends: true,
        test: {
          name: 'replay',
          include: [named(PROJECT_SUFFIXES.replay)],
          globalSetup: ['test/bundle-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [named(PROJECT_SUFFIXES.integration)],
          // One real Temporal dev server and one S3 server for the whole run, and the workflow code
          // bundled once; tests read them via inject(). Only this project's runs start them.
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/longest-first.ts';

/**
 * The `unit` project: files that start nothing (no Temporal, no S3, no emulator or other server,
 * no child process, no browser), so they run without test/global-setup.ts and in milliseconds.
 * A file not listed here is an integration test: the safe default for a new file, since it gets the
 * servers whether it needs them or not. List a file here only when it starts nothing.
 */
export const UNIT = [
  'test/api/link-policy.test.ts',
  'test/api/redact.test.ts',
  'test/api/service-url.test.ts',
  'test/architecture/imports.test.ts',
  'test/architecture/suite-config.test.ts',
  'test/cli/exit-codes.test.ts',
  'test/cli/live-view.test.ts',
  'test/cli/status-truth.test.ts',
  'test/infra/bundle-cache.test.ts',
  'test/infra/workflow-thread.test.ts',
  'test/cli/pause-line.test.ts',
  'test/cli/left-to-run.test.ts',
  'test/cli/caps-command.test.ts',
  'test/cli/worker-log.test.ts',
  'test/emulator/h264-bits.test.ts',
  'test/emulator/still.test.ts',
  'test/engine/campaign-state.test.ts',
  'test/engine/plain-state.test.ts',
  'test/engine/decide.test.ts',
  'test/engine/failure-policy.test.ts',
  'test/engine/governor-shares.test.ts',
  'test/engine/key-fingerprint.test.ts',
  'test/engine/notify-payload.test.ts',
  'test/engine/pacer.test.ts',
  'test/engine/provenance-png.test.ts',
  'test/engine/published-attributes.test.ts',
  'test/engine/review-rules.test.ts',
  'test/engine/review-state.test.ts',
  'test/engine/selection.test.ts',
  'test/engine/step-batched-heirs.test.ts',
  'test/engine/step-counts.test.ts',
  'test/engine/step-downloads.test.ts',
  'test/engine/step-notify.test.ts',
  'test/engine/step-outage.test.ts',
  'test/engine/step-properties.test.ts',
  'test/engine/step-refusals.test.ts',
  'test/engine/step.test.ts',
  'test/engine/caps-adopt.test.ts',
  'test/engine/caps-ledger.test.ts',
  'test/engine/step-caps.test.ts',
  'test/infra/compose.test.ts',
  'test/plan/broken-specs.test.ts',
  'test/plan/examples.test.ts',
  'test/plan/expansion.test.ts',
  'test/plan/inherited-names.test.ts',
  'test/plan/input-roots.test.ts',
  'test/plan/job-limit.test.ts',
  'test/plan/json-schema.test.ts',
  'test/plan/keys.test.ts',
  'test/plan/matrix.test.ts',
  'test/plan/notify.test.ts',
  'test/plan/weight-priority.test.ts',
  'test/plan/output-names.test.ts',
  'test/plan/refusals.test.ts',
  'test/plan/review.test.ts',
  'test/records/decisions.test.ts',
  'test/records/refusals.test.ts',
  'test/review/inbox-rows.test.ts',
  'test/records/manifest-view.test.ts',
  'test/review/links.test.ts',
  'test/review/live.test.ts',
  'test/review/model.test.ts',
  'test/review/report-money.test.ts',
  'test/review/progress-lines.test.ts',
  'test/review/prompt-check.test.ts',
  'test/review/refusals.test.ts',
  'test/review/sheet-url.test.ts',
  'test/review/winners.test.ts',
  'test/store/confined.test.ts',
  'test/store/failures.test.ts',
  'test/store/read-each.test.ts',
];

/** Unit files that mock a module (vi.mock): they run isolated (the `unit-mocks` project). */
export const MOCKING = ['test/records/index-collisions.test.ts'];

export default defineConfig({
  test: {
    // Most suites wait on emulated latencies, servers and browsers rather than compute: four files
    // at once keep two cores busy (the whole run used 1.55 cores with three, 1.71 with four: 469 s
    // -> 424 s wall; docs/benchmarks.md, "The suite"). The timing-sensitive tests compare rates
    // with each other, not with fixed floors, so the extra load does not fail them.
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
      { extends: true, test: { name: 'unit', include: UNIT, exclude: MOCKING } },
      // A module mock (vi.mock) applies to every file that shares the module registry: a file that
      // mocks gets a registry, and a process, of its own.
      { extends: true, test: { name: 'unit-mocks', include: MOCKING, isolate: true } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...MOCKING],
          // One real Temporal dev server and one S3 server for the whole run, and the workflow code
          // bundled once; tests read them via inject(). Only this project's runs start them.
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});

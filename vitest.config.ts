import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server for the whole run; tests read its address via inject().
    globalSetup: ['test/global-setup.ts'],
    // Most suites wait on emulated latencies, servers and browsers rather than compute: two files
    // at once keep two cores busy (vitest's default here would be one, serial: over 10 minutes);
    // three made the timing-sensitive drills flaky.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

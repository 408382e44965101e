import { DefaultLogger, Runtime } from '@temporalio/worker';

/**
 * Workers log every state change at INFO; tests, drills and replays only want to hear about
 * problems. The runtime is one per process and installs once: the test suite runs many files in
 * one process (vitest.config.ts, `isolate: false`), so whichever file comes first installs it and
 * the others keep it.
 */
export function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Installed already in this process: its logger stays.
  }
}

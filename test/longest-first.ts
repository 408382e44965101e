/**
 * Runs the integration files longest first, so the suite does not end on one long file while the
 * other workers sit idle. Vitest orders by the durations of its last run on this machine, but a
 * fresh clone has none and falls back to the largest file first, which put the two-minute crash
 * drill (a 1 kB file) last. test/durations.json holds each file's seconds from a measured run
 * (`npm run test:durations` writes it anew); a file it does not know yet counts as long, so a new
 * file is never the one the suite waits for.
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const UNKNOWN_SECONDS = 60;

const durations: Record<string, number> = JSON.parse(
  readFileSync(new URL('./durations.json', import.meta.url), 'utf8'),
);

function expectedSeconds(spec: TestSpecification): number {
  const file = spec.moduleId.slice(spec.project.config.root.length + 1);
  return durations[file] ?? UNKNOWN_SECONDS;
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byBase = await super.sort(files);
    // Array sort is stable: files of one expected length keep the base order (failed first).
    return byBase.sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      return expectedSeconds(b) - expectedSeconds(a);
    });
  }
}

/**
 * `npm run test:durations`: writes test/durations.json (the order test/longest-first.ts runs the
 * integration files in) from the durations vitest kept of its last run here, in seconds.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const CACHE = 'node_modules/.vite/vitest';
const Results = z.object({
  results: z.array(z.tuple([z.string(), z.object({ duration: z.number() })])),
});

const seconds = new Map<string, number>();
for (const dir of readdirSync(CACHE)) {
  const { results } = Results.parse(JSON.parse(readFileSync(join(CACHE, dir, 'results.json'), 'utf8')));
  for (const [key, { duration }] of results) {
    const [project, file] = key.split(':', 2);
    if (project === 'integration' && file) seconds.set(file, Math.max(1, Math.round(duration / 1000)));
  }
}
const longestFirst = [...seconds].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
writeFileSync('test/durations.json', `${JSON.stringify(Object.fromEntries(longestFirst), null, 2)}\n`);
console.log(`test/durations.json: ${seconds.size} files`);

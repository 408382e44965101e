/**
 * The suite's files share worker processes and loaded modules (vitest.config.ts, `isolate: false`),
 * so a module mock would leak into whichever file runs next in that process. A file that mocks a
 * module must be listed in MOCKING, which runs each such file in a process of its own. The
 * integration files run longest first, by test/durations.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MOCKING, UNIT } from '../../vitest.config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('the suite configuration', () => {
  it('runs every file that mocks a module in a process of its own', () => {
    const mocking = testFiles(join(ROOT, 'test')).filter((file) =>
      /\bvi\.(do)?mock\(/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.sort()).toEqual([...MOCKING].sort());
  });

  it('orders the integration files by durations of files that exist and are integration files', () => {
    // test/longest-first.ts: a renamed file would otherwise lose its place without a word.
    const listed = Object.keys(JSON.parse(readFileSync(join(ROOT, 'test/durations.json'), 'utf8')));
    const integration = testFiles(join(ROOT, 'test')).filter(
      (file) => !UNIT.includes(file) && !MOCKING.includes(file),
    );
    expect(listed.filter((file) => !integration.includes(file))).toEqual([]);
  });
});

/**
 * A test file's name puts it in its project (vitest.config.ts). The names must tell the truth:
 * the files share worker processes and loaded modules (`isolate: false`), so a module mock must
 * run in a process of its own, and a unit file that reaches for the suite's servers would fail
 * for want of them, or start its own where unit files start nothing. The integration files run
 * longest first, by test/durations.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_SUFFIXES } from '../../vitest.config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

const FILES = testFiles(join(ROOT, 'test'));
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const isUnit = (file: string) => !Object.values(PROJECT_SUFFIXES).some((suffix) => file.endsWith(suffix));

/** What only the integration project has: the servers global-setup provides, or ones it starts. */
const SERVER_HELPERS = [
  /\binject\(/,
  /helpers\/(temporal|s3|s3-store|emulator|browser|terminal|cli)\.ts'/,
  /worker\/dev-server\.ts'/,
  /node:child_process'/,
  /emulator\/server\.ts'/,
];

describe('the suite configuration', () => {
  it('names every file that mocks a module so that it runs in a process of its own', () => {
    const mocking = FILES.filter((file) => /\bvi\.(do)?mock\(/.test(text(file)));
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.filter((file) => !file.endsWith(PROJECT_SUFFIXES['unit-mocks']))).toEqual([]);
  });

  it('keeps unit files away from servers, child processes and the suite bundle', () => {
    const starting = FILES.filter(isUnit)
      .filter((file) => file !== relative(ROOT, fileURLToPath(import.meta.url)))
      .filter((file) => SERVER_HELPERS.some((pattern) => pattern.test(text(file))));
    expect(starting).toEqual([]);
  });

  it('orders the integration files by durations of files that exist and are integration files', () => {
    // test/longest-first.ts: a renamed file would otherwise lose its place without a word.
    const listed = Object.keys(JSON.parse(text('test/durations.json')));
    const integration = FILES.filter((file) => file.endsWith(PROJECT_SUFFIXES.integration));
    expect(listed.filter((file) => !integration.includes(file))).toEqual([]);
  });
});

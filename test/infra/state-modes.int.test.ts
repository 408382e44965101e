/**
 * `.state/` is private: every folder 0700, every file 0600 (no group or other bit), the Temporal
 * dev server's SQLite files included, while the stack runs and after it stopped, and a file left
 * readable by an older mediaflow is tightened at the next start.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServiceClient } from '../../api/client/index.ts';
import { startEmbedded, stopEmbedded } from '../../worker/embedded.ts';
import { stackStateDir } from './embedded-helpers.ts';

/** Every path under `dir` (itself included) with its permission bits. */
function modes(dir: string): Map<string, number> {
  const found = new Map<string, number>([['.', statSync(dir).mode & 0o777]]);
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = join(relative, entry.name);
      found.set(path, statSync(join(dir, path)).mode & 0o777);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk('');
  return found;
}

function expectPrivate(dir: string): Map<string, number> {
  const found = modes(dir);
  const open = [...found]
    .filter(([, mode]) => (mode & 0o077) !== 0)
    .map(([path, mode]) => `${path} ${mode.toString(8)}`);
  expect(open).toEqual([]);
  for (const [path, mode] of found) {
    const isDir = statSync(join(dir, path)).isDirectory();
    expect(`${path} ${mode.toString(8)}`).toBe(`${path} ${(isDir ? 0o700 : 0o600).toString(8)}`);
  }
  return found;
}

describe('the embedded stack state folder', () => {
  it('is 0700 with 0600 files, temporal.db and the upload blobs included', async () => {
    const stateDir = await stackStateDir();
    // A file an older version left world-readable.
    writeFileSync(join(stateDir, 'old-notes.txt'), 'x', { mode: 0o644 });
    const stack = await startEmbedded({ stateDir });
    const client = createServiceClient({ baseUrl: stack.service.baseUrl, apiKey: stack.service.apiKey });
    try {
      await client.files.upload({
        filename: 'a.png',
        contentType: 'image/png',
        data: new Uint8Array([1, 2, 3]),
      });
    } finally {
      await client.close();
    }
    const running = expectPrivate(stateDir);
    for (const name of ['temporal.db', 'temporal.log', 'emulator.log', 'stack.json', 'embedded.json']) {
      expect(running.has(name), name).toBe(true);
    }

    expect(await stopEmbedded(stateDir)).toBe(true);
    const stopped = expectPrivate(stateDir);
    expect(stopped.has('emulator-state.json')).toBe(true);
    expect([...stopped.keys()].some((path) => path.startsWith('emulator-state.json.files/'))).toBe(true);
  });
});

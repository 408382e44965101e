/**
 * The workflow bundle kept between processes (worker/bundle-cache.ts): a bundle is taken only for
 * the very code it was made from, so a changed workflow file (or a dependency) bundles again rather
 * than replaying histories with stale code.
 */
import { cp, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cachedBundle, codeFingerprint, keepBundle } from '../../worker/bundle-cache.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A copy of the sources the fingerprint reads, to change one file of. */
async function copyOfSources(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mediaflow-bundle-src-'));
  for (const dir of ['workflows', 'contract', 'api', 'plan', 'activities'])
    await cp(join(ROOT, dir), join(root, dir), { recursive: true });
  await cp(join(ROOT, 'worker', 'bundle-workflows.ts'), join(root, 'worker', 'bundle-workflows.ts'));
  const interceptors = join('worker', 'tracing', 'workflow-interceptors.ts');
  await cp(join(ROOT, interceptors), join(root, interceptors));
  await cp(join(ROOT, 'package-lock.json'), join(root, 'package-lock.json'));
  return root;
}

describe('the workflow bundle cache', () => {
  it('names the code: the same sources give the same fingerprint, any change another', async () => {
    const root = await copyOfSources();
    const before = await codeFingerprint(root);
    expect(await codeFingerprint(root)).toBe(before);
    expect(await codeFingerprint(ROOT)).toBe(before);
    for (const [file, text] of [
      ['workflows/runtime/campaign.ts', '\n// one more line\n'],
      ['contract/new-rule.ts', 'export const X = 1;\n'],
      ['package-lock.json', '{}'],
      ['worker/tracing/workflow-interceptors.ts', '\n// one more line\n'],
    ] as const) {
      const changed = await copyOfSources();
      await writeFile(join(changed, file), text, { flag: 'a' });
      expect(await codeFingerprint(changed), file).not.toBe(before);
    }
  });

  it('names the tracing variant apart: its bundle holds the workflow interceptors', async () => {
    const plain = await codeFingerprint(ROOT);
    const traced = await codeFingerprint(ROOT, true);
    expect(traced).not.toBe(plain);
    expect(await codeFingerprint(ROOT, true)).toBe(traced);
  });

  it('keeps one bundle per code, private, and finds it only under its own fingerprint', async () => {
    const cache = join(await mkdtemp(join(tmpdir(), 'mediaflow-bundles-')), 'bundles');
    expect(await cachedBundle(cache, 'aaaa')).toBeNull();
    const first = await keepBundle(cache, 'aaaa', 'bundle of code a');
    expect(await cachedBundle(cache, 'aaaa')).toBe(first);
    expect(await cachedBundle(cache, 'bbbb')).toBeNull();
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    expect((await stat(first)).mode & 0o777).toBe(0o600);
    // The code changed: its bundle replaces the one of the code before.
    const second = await keepBundle(cache, 'bbbb', 'bundle of code b');
    expect(await readdir(cache)).toEqual(['workflows-bbbb.js']);
    expect(await cachedBundle(cache, 'bbbb')).toBe(second);
    expect(await cachedBundle(cache, 'aaaa')).toBeNull();
  });
});

import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE, Manifest, type ManifestEntry } from '../../activities/manifest.ts';

function entry(key: string): ManifestEntry {
  return {
    key,
    step: 'hero',
    name: key,
    model: 'I4',
    input: { prompt: key },
    prediction_id: `p-${key}`,
    credits_used: '0.03',
    file: `hero/${key}.png`,
    sha256: 'a'.repeat(64),
    bytes: 10,
    output_url: `https://cdn.example/${key}.png`,
    regenerations: 0,
    created_at: '2026-11-22T00:00:00.000Z',
    finished_at: '2026-11-22T00:00:01.000Z',
    wait_ms: 1000,
    download_ms: 5,
  };
}

describe('manifest', () => {
  it('finds lines another worker appends while many lookups run at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-manifest-'));
    const manifest = await Manifest.open(dir);
    const other = (key: string) =>
      appendFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(entry(key))}\n`);
    const lookups: Promise<ManifestEntry | undefined>[] = [];
    for (let i = 0; i < 200; i++) {
      other(`other-${i}`);
      if (i % 3 === 0) manifest.append(entry(`own-${i}`));
      // Misses force a read of the file, overlapping with the reads started before.
      lookups.push(manifest.get(`other-${i}`), manifest.get(`missing-${i}`));
    }
    const found = await Promise.all(lookups);
    expect(found.filter((e) => e?.key.startsWith('other-'))).toHaveLength(200);
    for (let i = 0; i < 200; i++) expect(await manifest.get(`other-${i}`)).toBeDefined();
    // A fresh reader sees exactly the lines written, each once.
    const lines = (await readFile(join(dir, MANIFEST_FILE), 'utf8')).trim().split('\n');
    const reopened = await Manifest.open(dir);
    expect([...reopened.all()]).toHaveLength(lines.length);
  });
});

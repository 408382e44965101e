/** A finished job's manifest line for record tests: every field filled, all derived from its key. */
import type { ManifestEntry } from '../../records/manifest.ts';

export function manifestEntry(key: string): ManifestEntry {
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

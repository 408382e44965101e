/**
 * What a worker's manifest and claims index hold after a large campaign (issue 13): N synthetic
 * jobs (~1 KB entries, as a real I4 job's with its prompt) are recorded in a temp folder by one
 * worker, looked up by a second (a fresh index, as another worker finishing them would), and
 * claimed and looked up likewise; the heap is measured after a full GC at each step.
 * Not a timed test. Run: `node --expose-gc --import tsx bench/manifest-memory.ts [jobs]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addClaims, type NewClaim } from '../records/claims.ts';
import { ClaimsIndex } from '../records/claims-index.ts';
import { Manifest, type ManifestEntry } from '../records/manifest.ts';
import { LocalStore } from '../store/index.ts';

const jobs = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (see the top of this file)');

const key = (i: number) => i.toString(16).padStart(32, '0');
const prompt = 'a product shot of an Acme sneaker on a marble plinth, soft light, '.repeat(12);

function entry(i: number): ManifestEntry {
  return {
    key: key(i),
    step: 'sweep',
    name: `sweep-${i}`,
    model: 'I4',
    input: { prompt: `${prompt}${i}`, aspect_ratio: '16:9' },
    prediction_id: `pred_${key(i)}`,
    credits_used: '0.03',
    file: `sweep/sweep-${i}.png`,
    sha256: 'a'.repeat(64),
    bytes: 4096,
    output_url: `https://cdn.example/${key(i)}.png`,
    regenerations: 0,
    created_at: '2026-11-23T00:00:00.000Z',
    finished_at: '2026-11-23T00:00:01.000Z',
    wait_ms: 1000,
    download_ms: 5,
  };
}

const claim = (i: number): NewClaim => ({
  prediction_id: `pred_${key(i)}`,
  key: key(i),
  regen: 0,
  idempotency_key: `${key(i)}${key(i)}`,
});

function heapMiB(): number {
  gc!();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const dir = await mkdtemp(join(tmpdir(), 'mediaflow-manifest-memory-'));
const rows: Array<[string, number]> = [];
const base = heapMiB();
const step = async (what: string, run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  rows.push([what, heapMiB() - base]);
  console.log(`${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
};

const writer = await Manifest.open(dir);
const reader = await Manifest.open(dir);
await step(`manifest: one worker records ${jobs} jobs`, async () => {
  for (let i = 0; i < jobs; i++) await writer.record(entry(i), null);
});
await step('manifest: a second worker looks each up', async () => {
  for (let i = 0; i < jobs; i++) {
    if ((await reader.get(key(i)))?.key !== key(i)) throw new Error(`job ${i} not found`);
  }
});
await step(`manifest: it looks up ${jobs} jobs not recorded (as each finish does first)`, async () => {
  for (let i = jobs; i < 2 * jobs; i++) if (await reader.get(key(i))) throw new Error(`job ${i} found`);
});
const store = new LocalStore(dir);
const index = new ClaimsIndex();
await step(`claims: ${jobs} creates ask for a claim (none), then claim (batches of 100)`, async () => {
  for (let i = 0; i < jobs; i += 100) {
    const batch = Array.from({ length: Math.min(100, jobs - i) }, (_, j) => claim(i + j));
    for (const made of batch) {
      if (await index.of(store, 'bench').lookup(made.idempotency_key)) throw new Error('claimed');
    }
    await addClaims(store, 'bench', batch);
  }
});
await step('claims: each claim is looked up again (as adoption would)', async () => {
  for (let i = 0; i < jobs; i++) {
    const found = await index.of(store, 'bench').lookup(claim(i).idempotency_key);
    if (found?.prediction_id !== claim(i).prediction_id) throw new Error(`claim ${i} not found`);
  }
});
for (const [what, mib] of rows) console.log(`${what}: heap +${mib.toFixed(1)} MiB`);
await rm(dir, { recursive: true, force: true });

/**
 * What the derive benchmarks share (bench/derive.ts, bench/derive-reels.ts): parents as a worker
 * holds them once saved (a manifest entry and a planned job with its derivatives), mediaflow's
 * derive stage run over them as a worker runs it (activities/derive/), and the wall, CPU and peak
 * memory of a piece of work.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { deriveDeps } from '../../activities/derive/deps.ts';
import { makeDerivatives } from '../../activities/derive/make-derivatives.ts';
import type { Operation } from '../../derive/operations.ts';
import { PlannedJob } from '../../plan/types.ts';
import { ManifestEntry } from '../../records/manifest.ts';
import { openStore } from '../../store/index.ts';
import { round } from './report.ts';

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

export interface Derivation {
  readonly step: string;
  readonly operations: Operation[];
}

/** A model's output as saved: its step, the model (I1 a still, V1 a clip), its file in the campaign folder and its bytes. */
export interface Saved {
  readonly step: string;
  readonly model: 'I1' | 'V1';
  readonly file: string;
  readonly bytes: Buffer;
}

/** A saved output and its planned job: what a forked phase reads back (bench/derive-phase.ts). */
export const Parent = z.object({ entry: ManifestEntry, job: PlannedJob });
export type Parent = z.infer<typeof Parent>;

/** Parent `index` and what to derive from it. */
export function parentOf(index: number, saved: Saved, derivations: readonly Derivation[]): Parent {
  const { step, model, file, bytes } = saved;
  const key = digest(`job ${index}`);
  const name = `${step[0]}${index}`;
  const at = new Date().toISOString();
  const entry = ManifestEntry.parse({
    key,
    step,
    name,
    model,
    input: { prompt: `${step} ${index}` },
    prediction_id: `p${index}`,
    credits_used: '0.12',
    file,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    output_url: `https://example.test/${index}`,
    regenerations: 0,
    created_at: at,
    finished_at: at,
    wait_ms: 0,
    download_ms: 0,
  });
  const job: PlannedJob = {
    key,
    step,
    name,
    model,
    input: { prompt: `${step} ${index}` },
    parent: null,
    usd: 120_000,
    vars: {},
    variant: 1,
    derivatives: derivations.map(({ step: derived, operations }) => ({
      step: derived,
      key: digest(`${key} ${derived}`),
      file: name,
      operations,
      output: model === 'I1' ? ('image' as const) : ('video' as const),
    })),
  };
  return { entry, job };
}

/** mediaflow's derive stage over every parent, as a worker runs it after each save; what it made. */
export async function deriveAll(folder: string, parents: readonly Parent[]) {
  const deps = deriveDeps();
  const store = openStore(folder);
  const context = { campaign: 'bench-derive', planDigest: 'bench' };
  const derived = await Promise.all(
    parents.map(({ job, entry }) => makeDerivatives(deps, store, job, entry, context)),
  );
  const made = derived.flat().filter(({ record }) => record.state === 'made');
  return { made: made.length, signed: made.some(({ record }) => record.state === 'made' && record.c2pa) };
}

/** Peak resident memory while `work` runs, sampled every 50 ms, its wall and the process's CPU (every thread's). */
export async function measured<T>(
  work: () => Promise<T>,
): Promise<{ value: T; peakMb: number; wallS: number; cpuS: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const value = await work();
    const { user, system } = process.cpuUsage(cpu);
    return {
      value,
      peakMb: round(peak / 1e6, 1),
      wallS: round((performance.now() - started) / 1000, 2),
      cpuS: round((user + system) / 1e6, 2),
    };
  } finally {
    clearInterval(sampler);
  }
}

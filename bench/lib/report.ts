/**
 * Turning what a benchmark measured into its results JSON and the verdict per goal: requests per
 * job by endpoint and the share of 429s from the emulator's ledger, the pace of creates over time,
 * and the machine it ran on. Every number a reader of docs/benchmarks.md sees comes from here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ledger } from '../../emulator/index.ts';
import { tracingRequested } from '../../telemetry/settings.ts';

const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

export interface Machine {
  nproc: number;
  cpu: string;
  memoryGiB: number;
  node: string;
}

export function machine(): Machine {
  return {
    nproc: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
}

export interface RequestStats {
  /** Route pattern → requests per job (all statuses). */
  perJobByEndpoint: Record<string, number>;
  perJob: number;
  total: number;
  rateLimited: number;
  rateLimitedShare: number;
}

/** From the ledger's route → status → count table (API requests only: CDN downloads are not in it). */
export function requestStats(ledger: Ledger, jobs: number): RequestStats {
  const perJobByEndpoint: Record<string, number> = {};
  let total = 0;
  let rateLimited = 0;
  for (const [route, byStatus] of Object.entries(ledger.requests)) {
    const n = Object.values(byStatus).reduce((a, b) => a + b, 0);
    perJobByEndpoint[route] = round(n / jobs, 3);
    total += n;
    rateLimited += byStatus['429'] ?? 0;
  }
  return {
    perJobByEndpoint,
    perJob: round(total / jobs, 3),
    total,
    rateLimited,
    rateLimitedShare: total === 0 ? 0 : round(rateLimited / total, 5),
  };
}

export interface Pace {
  /** Seconds from the start to the first and the last create. */
  firstCreateS: number;
  lastCreateS: number;
  /** Creates per second between the first and the last. */
  meanCreatesPerS: number;
  /** Creates in each whole second from the start (the shape of the ramp and of any stall). */
  createsPerSecond: number[];
}

/** `offsetsMs`: when each create happened, in ms from the start of the run. */
export function paceOf(offsetsMs: readonly number[]): Pace {
  const sorted = [...offsetsMs].sort((a, b) => a - b);
  const first = sorted[0] ?? 0;
  const last = sorted.at(-1) ?? 0;
  return {
    firstCreateS: round(first / 1000, 2),
    lastCreateS: round(last / 1000, 2),
    meanCreatesPerS: last > first ? round(((sorted.length - 1) * 1000) / (last - first), 1) : 0,
    createsPerSecond: countPer(sorted, 1000),
  };
}

/** How many of `offsetsMs` (ms from the start; any before it count in the first) fall in each `spanMs` from the start. */
export function countPer(offsetsMs: readonly number[], spanMs: number): number[] {
  const counts: number[] = [];
  for (const ms of offsetsMs) {
    const span = Math.max(0, Math.floor(ms / spanMs));
    while (counts.length <= span) counts.push(0);
    counts[span]!++;
  }
  return counts;
}

export interface Verdict {
  goal: string;
  target: string;
  measured: string;
  met: boolean;
}

export function verdict(goal: string, measured: number, limit: number, unit = ''): Verdict {
  return {
    goal,
    target: `≤ ${limit}${unit}`,
    measured: `${round(measured, 3)}${unit}`,
    met: measured <= limit,
  };
}

/**
 * Writes bench/results/<name>.json; a run with tracing on (an OTLP endpoint in the environment,
 * which the workers inherit) is kept beside it as <name>.traced.json, never over the result it is
 * compared with (docs/benchmarks.md, "Tracing overhead").
 */
export function writeResult(name: string, result: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}${tracingRequested() ? '.traced' : ''}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export const MIB = 2 ** 20;

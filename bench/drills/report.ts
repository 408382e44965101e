/**
 * What a drill hands back: its numbers and one check per goal of issue 5, each with the detail a
 * reader needs to believe it. Written as JSON to bench/results/drill-<name>.json by run.ts.
 */
import os from 'node:os';

export interface Check {
  goal: string;
  ok: boolean;
  detail: string;
}

export interface DrillReport {
  drill: string;
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
  params: Record<string, unknown>;
  wallMs: number;
  numbers: Record<string, unknown>;
  checks: Check[];
  ok: boolean;
  /** The stack's folder (specs, outputs, logs, Temporal db): kept only when a check failed. */
  dir: string;
}

export function check(goal: string, ok: boolean, detail: string): Check {
  return { goal, ok, detail };
}

export function drillReport(
  drill: string,
  params: Record<string, unknown>,
  wallMs: number,
  numbers: Record<string, unknown>,
  checks: Check[],
  dir: string,
): DrillReport {
  return {
    drill,
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    params,
    wallMs,
    numbers,
    checks,
    ok: checks.every((c) => c.ok),
    dir,
  };
}

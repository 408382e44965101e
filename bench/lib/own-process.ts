/**
 * A benchmark's phase in a Node process of its own, forked with the same loader: its peak resident
 * memory is the kernel's high-water mark for that phase alone. In one shared process a phase's
 * peak starts from what the phases before it left resident (glibc keeps freed arenas mapped: a
 * sharp script run first left 270 MB behind mediaflow's derive stage), so a goal on a phase's peak
 * could not be told from the phase before it.
 */
import { fork } from 'node:child_process';
import { z } from 'zod';
import { round } from './report.ts';

export const PhaseResult = z.object({
  wallS: z.number(),
  cpuS: z.number(),
  /** The process's peak resident memory, its start-up included (a worker pays that too). */
  peakMb: z.number(),
  value: z.unknown(),
});
export type PhaseResult = z.infer<typeof PhaseResult>;

/** How the phase's process starts beyond this one's loader: a worker's Node flags and environment. */
export interface ProcessShape {
  readonly nodeFlags?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs `entry` (a module that calls `reportPhase`) with `args`; what it reported. */
export function inOwnProcess(
  entry: URL,
  args: readonly string[],
  shape: ProcessShape = {},
): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const child = fork(entry, [...args], {
      stdio: 'inherit',
      execArgv: [...process.execArgv, ...(shape.nodeFlags ?? [])],
      env: { ...process.env, ...shape.env },
    });
    let result: PhaseResult | undefined;
    child.on('message', (message) => {
      result = PhaseResult.parse(message);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (result && code === 0) resolve(result);
      else
        reject(
          new Error(`the phase ${entry.pathname} ${args.join(' ')} ended with ${signal ?? `code ${code}`}`),
        );
    });
  });
}

/** In the forked process: runs `work`, reports its wall, CPU (every thread's) and the process's peak, and exits. */
export async function reportPhase(work: () => Promise<unknown>): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) throw new Error('a phase runs in a process forked by inOwnProcess');
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = (await work()) ?? null;
  const { user, system } = process.cpuUsage(cpu);
  const result: PhaseResult = {
    wallS: round((performance.now() - started) / 1000, 2),
    cpuS: round((user + system) / 1e6, 2),
    // maxRSS is in kilobytes.
    peakMb: round((process.resourceUsage().maxRSS * 1024) / 1e6, 1),
    value,
  };
  // Thread pools (the signer's, libvips') would keep the process alive: it ends once the parent has the result.
  send(result, () => process.exit(0));
}

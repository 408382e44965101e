/**
 * Where a process's CPU went, by thread (Linux /proc/<pid>/task/<tid>/stat): a mediaflow worker
 * runs the activities on Node's main thread, the workflow code on a worker thread of its own
 * (named after the SDK's thread pool), the Temporal core on tokio threads, and garbage collection
 * and file I/O on V8's and libuv's helpers. Grouped by the thread's name, so a profile can say
 * which of them a job's CPU went to without instrumenting the code (docs/engine.md, "The ceiling").
 */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS = 100;

/** CPU seconds per thread name (threads of one name summed); empty when the process is gone. */
export function threadCpu(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = nameOf(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), tid === String(pid));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName[name] = (byName[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return byName;
}

/** Threads of one pool share a name but for a number: `tokio-runtime-w`, `libuv-worker`, `V8Worker`. */
function nameOf(comm: string, main: boolean): string {
  if (main) return 'main (activities, SDK bridge)';
  return comm.replace(/[\d-]+$/, '').trim() || comm;
}

/** The CPU each named thread group used between two readings. */
export function threadCpuSince(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [name, seconds] of Object.entries(after)) {
    const delta = seconds - (before[name] ?? 0);
    if (delta >= 0.01) used[name] = Math.round(delta * 100) / 100;
  }
  return used;
}

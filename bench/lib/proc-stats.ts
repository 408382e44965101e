/**
 * Resource use of a child process from /proc (Linux): peak resident memory (VmHWM) and CPU time
 * (utime + stime). /proc/<pid> disappears when the process dies, so a sampler keeps the last
 * reading; callers take one more sample right before they kill the process.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

export interface ProcSample {
  peakRssBytes: number;
  cpuSeconds: number;
}

/** One reading, or null when the process is gone. */
export function readProcSample(pid: number): ProcSample | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
    // An exited process not yet reaped (a zombie) has no memory lines: its last reading stands.
    if (!hwm) return null;
    const fields = statFields(pid);
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return { peakRssBytes: Number(hwm[1]) * 1024, cpuSeconds: ticks / CLOCK_TICKS };
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a process and its children (one level: PostgreSQL's backends under its
 * postmaster): the living ones' utime + stime, plus what the children already reaped used
 * (cutime + cstime), so a backend that closed still counts. 0 when the process is gone.
 */
export function treeCpuSeconds(pid: number): number {
  try {
    const fields = statFields(pid);
    const own = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
    const living = children.reduce((n, child) => {
      try {
        const f = statFields(Number(child));
        return n + Number(f[11]) + Number(f[12]);
      } catch {
        return n; // exited since the list was read: its time is in our cutime once reaped
      }
    }, 0);
    return (own + living) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * The whole machine's CPU time so far (/proc/stat's first line, in clock ticks): busy (every state
 * but idle and iowait) and total. Two readings tell how much of every core a stretch used, which
 * says whether the machine as a whole was the limit (issue 22's "which one binds on 2 cores").
 */
export function machineCpuTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const ticks = fields.map(Number);
  const total = ticks.reduce((n, t) => n + t, 0);
  return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
}

/** /proc/<pid>/stat's fields after the command name (which is in parentheses and may hold spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * Samples `pid` every `everyMs` until stopped; `last` holds the latest reading, `peakRisenAt` when
 * (epoch ms, to within `everyMs`) the high-water mark last rose: what the process was doing then
 * is what set its peak.
 */
export class ProcSampler {
  last: ProcSample = { peakRssBytes: 0, cpuSeconds: 0 };
  peakRisenAt = 0;
  private readonly timer: NodeJS.Timeout;

  private readonly pid: number;

  constructor(pid: number, everyMs = 250) {
    this.pid = pid;

    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  sample(): void {
    const reading = readProcSample(this.pid);
    if (!reading) return;
    if (reading.peakRssBytes > this.last.peakRssBytes) this.peakRisenAt = Date.now();
    this.last = reading;
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}

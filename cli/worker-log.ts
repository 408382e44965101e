/**
 * The worker's log file of `run` (its warnings, one line each, while the live view owns the
 * terminal). It lives in the output folder, so it meets a full disk first: a log line that cannot
 * be written is dropped and counted, never thrown. The Temporal runtime calls this logger inside
 * activity interceptors, where a throw replaces the activity's own failure (a `disk_full` that
 * stops the campaign) with a plain retryable error: the run then retried forever on a full disk.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LogEntry } from '@temporalio/worker';

export interface WorkerLog {
  write(entry: LogEntry): void;
  close(): void;
  /** Lines dropped because the file could not be written (a full disk, a read-only folder). */
  readonly dropped: number;
}

export interface WorkerLogOptions {
  /** Called once, at the first line written (`run` says where the file is). */
  readonly onFirst?: () => void;
  /** Called once, at the first line that could not be written, with the error's code. */
  readonly onLost?: (code: string) => void;
  /** Entries not worth a line (the governors' notice that they register no activity). */
  readonly skip?: (entry: LogEntry) => boolean;
}

/**
 * Appends one line per entry: time, level, message, then its attributes as JSON (task tokens
 * dropped: opaque, long, and of no use to a reader). Written synchronously, so the lines are
 * there even when the process exits right after (detach).
 */
export function workerLog(path: string, options: WorkerLogOptions = {}): WorkerLog {
  let fd: number | null = null;
  let closed = false;
  let dropped = 0;
  // Lines lost since the last one that landed: said in the next line that lands (space freed).
  let gap = 0;
  const lost = (error: unknown) => {
    dropped++;
    gap++;
    if (dropped === 1) options.onLost?.(codeOf(error));
  };
  return {
    write(entry: LogEntry): void {
      if (closed || options.skip?.(entry)) return;
      try {
        if (fd === null) {
          // Private like the rest of `.state/` (worker/private-state.ts), wherever it is.
          mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
          fd = openSync(path, 'a', 0o600);
          options.onFirst?.();
        }
        const note = gap > 0 ? ` (${gap} earlier lines lost: the log could not be written)` : '';
        writeSync(fd, `${lineOf(entry)}${note}\n`);
        gap = 0;
      } catch (error) {
        lost(error);
      }
    },
    close(): void {
      closed = true;
      if (fd === null) return;
      try {
        closeSync(fd);
      } catch {
        // Closing after a full disk may report the write that failed: nothing left to do with it.
      }
    },
    get dropped() {
      return dropped;
    },
  };
}

function lineOf(entry: LogEntry): string {
  const { taskToken: _, ...meta } = entry.meta ?? {};
  const at = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  return `${at} ${entry.level} ${entry.message} ${JSON.stringify(meta, attributeJson)}`;
}

/** An error's name and message are not enumerable: JSON.stringify alone would drop them. */
function attributeJson(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return String(value);
  if (value instanceof Error) return { ...value, name: value.name, message: value.message };
  return value;
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}

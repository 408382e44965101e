/**
 * One run of ffmpeg or ffprobe as a child process: an argument array, never a shell, so paths and
 * user text reach the tool as they are. ffmpeg writes its errors to stderr and can write a lot of
 * it on a long clip, so only the last lines are kept: enough to say what went wrong, never the
 * whole log in a job's failure.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { DeriveError } from '../derive-error.ts';

/** How to get the tools, for every message that says one is missing. */
export const INSTALL_HINT =
  'clips in derive steps need ffmpeg and ffprobe (Debian: apt-get install ffmpeg; or set MEDIAFLOW_FFMPEG and MEDIAFLOW_FFPROBE)';

const STDERR_LINES_KEPT = 8;

/** `nice` 10: what batch work takes on Unix beside interactive work (0). */
const TOOL_NICENESS = 10;

export interface ToolRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  /** The last few non-empty lines ffmpeg wrote to stderr. */
  readonly stderrTail: readonly string[];
}

export interface ToolRunOptions {
  readonly cwd?: string;
  readonly signal?: AbortSignal;
  /** Each complete stdout line as it arrives (ffmpeg's `-progress pipe:1`); stdout is then not kept. */
  readonly onStdoutLine?: (line: string) => void;
}

/** Keeps the last lines of a stream that arrives in chunks. */
class LineTail {
  readonly #limit: number;
  readonly #lines: string[] = [];
  #partial = '';

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(chunk: string, onLine?: (line: string) => void): void {
    const lines = (this.#partial + chunk).split(/\r?\n|\r/);
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#keep(line, onLine);
  }

  end(onLine?: (line: string) => void): readonly string[] {
    this.#keep(this.#partial, onLine);
    this.#partial = '';
    return this.#lines;
  }

  #keep(line: string, onLine?: (line: string) => void): void {
    if (line.trim() === '') return;
    onLine?.(line);
    this.#lines.push(line);
    if (this.#lines.length > this.#limit) this.#lines.shift();
  }
}

/**
 * Runs `command` to its end. Rejects only when it cannot start (a DeriveError when it is not
 * installed: retrying will not install it) or is aborted (the child is killed first); a non-zero
 * exit is the caller's to read.
 */
export function runTool(
  command: string,
  args: readonly string[],
  options: ToolRunOptions = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      signal: options.signal,
      killSignal: 'SIGKILL',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Below the worker's own priority: a cut takes every core it is given, and the campaign's
    // creates, downloads and heartbeats on the same machine must not wait behind it.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, TOOL_NICENESS);
      } catch {
        // Not permitted here (some containers): the tool runs at the worker's priority.
      }
    }
    const stdout: string[] = [];
    const progressLines = new LineTail(1);
    const stderr = new LineTail(STDERR_LINES_KEPT);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (options.onStdoutLine === undefined) stdout.push(chunk);
      else progressLines.push(chunk, options.onStdoutLine);
    });
    child.stderr.on('data', (chunk: string) => stderr.push(chunk));
    // 'close' follows 'error' too (a failed start, an abort's kill): settling there means an
    // aborted ffmpeg is gone, and writes nothing more, by the time the caller cleans up after it.
    let failure: Error | null = null;
    child.on('error', (error: NodeJS.ErrnoException) => {
      failure ??=
        error.code === 'ENOENT'
          ? new DeriveError(null, `${command} is not installed: ${INSTALL_HINT}`)
          : error;
    });
    child.on('close', (exitCode) => {
      if (failure !== null) return reject(failure);
      if (options.onStdoutLine !== undefined) progressLines.end(options.onStdoutLine);
      resolve({ exitCode, stdout: stdout.join(''), stderrTail: stderr.end() });
    });
  });
}

/**
 * A `mediaflow` command as a user runs it (`node <tree>/bin/mediaflow.js …`), of this release or of
 * an older one checked out elsewhere (bench/lib/release.ts): its own process, its output kept in
 * memory (to look for a line) and in a log file (to read after a failed drill). Secrets go through
 * the environment only, never argv. Tied to this process by the watchdog, so a drill that dies
 * leaves no worker behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchdog } from '../../worker/watchdog.ts';

export interface CliProcess {
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr, interleaved). */
  output(): string;
  /** False once it exited. */
  running(): boolean;
  /** Its exit code (null when a signal ended it), once it exited. */
  readonly exited: Promise<number | null>;
  /** Resolves once its output matches `pattern`; rejects when it exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Signals it and waits for its exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export function startCli(
  bin: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; log: string },
): CliProcess {
  const child = spawn('sh', ['-c', watchdog('KILL'), process.execPath, bin, ...args], {
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  if (child.pid === undefined) throw new Error(`could not start ${bin} ${args.join(' ')}`);
  const log = createWriteStream(options.log, { flags: 'a' });
  let text = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      log.write(chunk);
    });
  }
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      child.stdin?.destroy(); // lets the watchdog's `cat` end
      log.end();
      resolve(code);
    }),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    pid: child.pid,
    output: () => text,
    running: () => !done,
    exited,
    async waitFor(pattern, timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(text)) {
        if (done) throw new Error(`${args[0]} exited before printing ${pattern}:\n${text}`);
        if (Date.now() > until)
          throw new Error(`${args[0]} printed no ${pattern} in ${timeoutMs} ms:\n${text}`);
        await sleep(100);
      }
    },
    kill: (signal) => killAndWait(child, exited, signal),
  };
}

async function killAndWait(child: ChildProcess, exited: Promise<unknown>, signal: NodeJS.Signals) {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await exited;
}

/**
 * Small process helpers shared by the dev server and the embedded stack: both start long-lived
 * children in their own process group, so one signal reaches the child and anything it spawned.
 */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** True while `pid` exists (a negative pid: any process of that group). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means it exists but belongs to someone else: still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while any process of the group led by `pgid` is alive. */
export function groupAlive(pgid: number): boolean {
  return processAlive(-pgid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * SIGTERM to the whole group (the Temporal dev server flushes SQLite on SIGTERM), then SIGKILL
 * if it has not exited after `graceMs`. Resolves once no process of the group is left, so the
 * caller can reuse the port and the database file straight away.
 */
export async function terminateGroup(pgid: number, graceMs = 10_000): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      signalGroup(pgid, 'SIGKILL');
      while (groupAlive(pgid)) await sleep(20);
      return;
    }
    await sleep(20);
  }
}

/** Whether `port` can be bound on 127.0.0.1 right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePort(true)));
  });
}

/** A port the OS considers free now (another process could still take it before we bind it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Starts test/helpers/webhook-receiver.py (the Python `standardwebhooks` package verifies
 * signatures) and collects what it received. The package lives in its own venv (scripts/install-test-tools.sh).
 */
import { spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const RECEIVER_PYTHON = fileURLToPath(
  new URL('../../.tools/standardwebhooks-venv/bin/python', import.meta.url),
);
const SCRIPT = fileURLToPath(new URL('./webhook-receiver.py', import.meta.url));

export interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly status: number;
  readonly verified: boolean;
  readonly payload?: { type?: string; data?: Record<string, unknown>; text?: string };
  readonly error?: string;
  readonly duplicate?: boolean;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Resolves once `count` deliveries arrived (the test's timeout bounds the wait). */
  until(count: number): Promise<void>;
}

/** `secret` null: a Slack-style receiver (no signature). `failFirst` deliveries answered 500. */
export async function startReceiver(secret: string | null, failFirst = 0): Promise<Receiver> {
  const child = spawn(RECEIVER_PYTHON, [SCRIPT], {
    env: {
      ...process.env,
      RECEIVER_FAIL_FIRST: String(failFirst),
      ...(secret && { RECEIVER_SECRET: secret }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    child.kill();
  });
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`webhook-receiver.py exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  lines.on('line', (line) => {
    received.push(JSON.parse(line) as Received);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    url: `http://127.0.0.1:${port}/hook/path-secret`,
    received,
    until: async (count) => {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

/** A loopback port nothing listens on (taken, then let go). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

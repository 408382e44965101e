/**
 * The embedded stack under test: a state folder of the test's own, pre-seeded with free ports
 * (so parallel tests, and other checkouts on the machine, never race for 7233/4010), and the
 * `mediaflow` command run in it as a user runs it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { z } from 'zod';
import { stopEmbedded } from '../../worker/embedded.ts';
import { readRecord, type StackRecord } from '../../worker/embedded-record.ts';
import { freePort, groupAlive } from '../../worker/process-group.ts';
import { cleanEnv, mediaflow, type Outcome } from '../cli/helpers.ts';

/** A state folder whose stack is stopped after the file's tests, whatever happened. */
export async function stackStateDir(): Promise<string> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mediaflow-stack-'));
  const ports = { temporal: await freePort(), ui: await freePort(), emulator: await freePort() };
  const apiKey = `mfk_${randomBytes(24).toString('hex')}`;
  writeFileSync(join(stateDir, 'stack.json'), JSON.stringify({ apiKey, ports }), { mode: 0o600 });
  afterAll(() => stopEmbedded(stateDir).then(() => undefined));
  return stateDir;
}

/** `mediaflow <args>` with only MEDIAFLOW_STATE_DIR set. */
export function stackCli(stateDir: string, args: readonly string[], cwd = stateDir): Promise<Outcome> {
  return mediaflow(args, { cwd, env: cleanEnv({ MEDIAFLOW_STATE_DIR: stateDir }) });
}

export function record(stateDir: string): StackRecord {
  const found = readRecord(stateDir);
  if (!found) throw new Error(`no embedded.json in ${stateDir}`);
  return found;
}

export function bothAlive(stack: StackRecord): boolean {
  return groupAlive(stack.temporal.pgid) && groupAlive(stack.emulator.pgid);
}

const Ledger = z.object({
  predictionsCreated: z.number(),
  duplicates: z.number(),
  failedPredictions: z.number(),
  byIdempotencyKey: z.record(z.string(), z.number()),
  creditsCharged: z.string(),
});

/** The emulator's ledger (loopback only, no key). */
export async function ledgerOf(stack: StackRecord): Promise<z.infer<typeof Ledger>> {
  const response = await fetch(`${new URL(stack.emulator.baseUrl).origin}/_emulator/ledger`);
  return Ledger.parse(await response.json());
}

export async function until(check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${check}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

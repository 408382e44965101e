/**
 * The service `estimate` prices against: the configured one (MEDIAFLOW_API_URL); else, on the
 * embedded default, the emulator of the embedded stack when one is running (worker/embedded.ts),
 * since its balance is the one `run` will spend from; else a fresh emulator in this process, said
 * as such, because its $1000.00 balance is nobody's.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { createServiceClient, type ServiceClient, serviceClientFromEnv } from '../api/client/index.ts';
import { temporalConfigured } from '../worker/connection.ts';
import { UserError } from './errors.ts';
import { stateDirOf } from './state-home.ts';

export interface PricingService {
  readonly client: Pick<ServiceClient, 'estimate' | 'account'>;
  stop(): Promise<void>;
}

/** The part of `<stateDir>/embedded.json` that locates the stack's emulator. */
const EmbeddedRecord = z.object({
  emulator: z.object({ baseUrl: z.url(), apiKey: z.string().min(1) }),
});

export async function connectPricingService(env: NodeJS.ProcessEnv = process.env): Promise<PricingService> {
  if (env.MEDIAFLOW_API_URL) {
    if (!env.MEDIAFLOW_API_KEY) throw new UserError('MEDIAFLOW_API_URL is set but MEDIAFLOW_API_KEY is not');
    const client = serviceClientFromEnv(env);
    return { client, stop: () => client.close() };
  }
  const stateDir = stateDirOf(env);
  const running = temporalConfigured(env) ? null : await runningEmbeddedEmulator(stateDir);
  if (running) {
    process.stderr.write(
      `MEDIAFLOW_API_URL is not set: estimating against the running embedded emulator (${running.baseUrl}), ` +
        'whose balance `run` spends\n',
    );
    const client = createServiceClient(running);
    return { client, stop: () => client.close() };
  }
  const { startEmulator } = await import('../emulator/index.ts');
  const emulator = await startEmulator({ port: 0, timeScale: 0 });
  process.stderr.write(
    'MEDIAFLOW_API_URL is not set and no embedded stack is running: priced against a fresh local ' +
      `emulator (${emulator.baseUrl}), whose balance is a new account's\n`,
  );
  const client = createServiceClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });
  return {
    client,
    stop: async () => {
      await client.close();
      await emulator.close();
    },
  };
}

/**
 * The embedded stack's emulator, if its record exists and the emulator answers with the recorded
 * key (a stale record of a stopped stack, or a stranger on its port, does not count).
 */
export async function runningEmbeddedEmulator(
  stateDir: string,
): Promise<{ baseUrl: string; apiKey: string } | null> {
  let text: string;
  try {
    text = readFileSync(join(resolve(stateDir), 'embedded.json'), 'utf8');
  } catch {
    return null;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const record = EmbeddedRecord.safeParse(data);
  if (!record.success) return null;
  const client = createServiceClient({ ...record.data.emulator, timeoutMs: 2_000 });
  try {
    await client.account.balance();
    return record.data.emulator;
  } catch {
    return null;
  } finally {
    await client.close();
  }
}

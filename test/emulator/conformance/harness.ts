/**
 * The contract harness: the REAL emulator on a free loopback port and the real client talking to
 * it over HTTP. Time scale 0 by default, so predictions settle on the next tick.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { createServiceClient, type ServiceClient, ServiceError } from '../../../api/client/index.ts';
import { type RunningEmulator, startEmulator } from '../../../emulator/index.ts';
import { UNHURRIED } from '../../helpers/emulator.ts';

type EmulatorOptions = NonNullable<Parameters<typeof startEmulator>[0]>;

export interface Contract {
  readonly emulator: RunningEmulator;
  /** A client with the emulator's key. */
  readonly client: ServiceClient;
  /** Another client on the same emulator with another key (closed with the harness). */
  clientWithKey(apiKey: string): ServiceClient;
}

/** Starts one emulator for the suite (beforeAll) and stops it and every client (afterAll). */
export function useEmulator(options: EmulatorOptions = {}): Contract {
  let emulator: RunningEmulator | undefined;
  const clients: ServiceClient[] = [];
  const make = (apiKey: string) => {
    const client = createServiceClient({ baseUrl: emulator!.baseUrl, apiKey, timeoutMs: 10_000 });
    clients.push(client);
    return client;
  };
  let client: ServiceClient | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ timeScale: 0, limits: UNHURRIED, ...options });
    client = make(emulator.apiKey);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emulator?.close();
  });
  return {
    get emulator() {
      return emulator!;
    },
    get client() {
      return client!;
    },
    clientWithKey: make,
  };
}

/** Awaits `action`, which must fail with a ServiceError; returns it for further checks. */
export async function serviceError(action: () => Promise<unknown>): Promise<ServiceError> {
  try {
    await action();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected a ServiceError, and the call succeeded');
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

let sequence = 0;
/** A fresh idempotency key per call, so tests never collide with one another. */
export function freshKey(label = 'contract'): string {
  sequence += 1;
  return `${label}-${process.pid}-${sequence}-${Date.now()}`;
}

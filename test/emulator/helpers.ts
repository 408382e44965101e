/** Raw-HTTP helpers for the emulator tests (the typed client has its own contract tests). */
import { afterAll, beforeAll } from 'vitest';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../emulator/index.ts';
import { UNHURRIED } from '../helpers/emulator.ts';
import type { Json } from '../helpers/json.ts';

export type { Json };

export interface Reply<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

export type Caller = (
  method: string,
  path: string,
  body?: unknown,
  init?: { key?: string | null; headers?: Record<string, string> },
) => Promise<Reply>;

/** Starts one emulator for the enclosing describe block (time scale 0 unless told otherwise). */
export function useEmulator(options: EmulatorOptions = {}): {
  emulator: () => RunningEmulator;
  call: Caller;
} {
  let running: RunningEmulator | undefined;
  beforeAll(async () => {
    running = await startEmulator({ timeScale: 0, seed: 7, limits: UNHURRIED, ...options });
  });
  afterAll(async () => {
    await running?.close();
  });
  const emulator = () => running!;
  const call: Caller = async (method, path, body, init = {}) => {
    const key = init.key === undefined ? emulator().apiKey : init.key;
    const response = await fetch(`${emulator().baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...init.headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  return { emulator, call };
}

export const I1 = '/mf-i1/i1-base/predictions';
export const V1 = '/mf-v1/v1-base/predictions';

export function createBody(input: Record<string, unknown>) {
  return { input, image_count: 1 };
}

/** Polls a prediction until it leaves `processing` (time scale 0 makes that the next tick). */
export async function settled(call: Caller, id: number | string): Promise<Json> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { body } = await call('GET', `/predictions/${id}`);
    if (body.status !== 'processing') return body;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`prediction ${id} never settled`);
}

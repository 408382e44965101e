import { describe, expect, it } from 'vitest';
import { type EmulatorOptions, startEmulator } from '../../emulator/index.ts';
import { UNHURRIED } from '../helpers/emulator.ts';
import { createBody, I1, settled, useEmulator } from './helpers.ts';

/** Creates `count` predictions and returns which ones failed, in order. */
async function failurePattern(options: EmulatorOptions, count: number): Promise<boolean[]> {
  const emulator = await startEmulator({ timeScale: 0, limits: UNHURRIED, ...options });
  try {
    const headers = { authorization: `Bearer ${emulator.apiKey}`, 'content-type': 'application/json' };
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const reply = await fetch(`${emulator.baseUrl}${I1}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(createBody({ prompt: `p${i}` })),
      });
      ids.push(((await reply.json()) as { id: number }).id);
    }
    const call = async (_method: string, path: string) => ({
      status: 200,
      headers: new Headers(),
      body: await (await fetch(`${emulator.baseUrl}${path}`, { headers })).json(),
    });
    const statuses = await Promise.all(ids.map((id) => settled(call, id)));
    return statuses.map((p) => p.status === 'failed');
  } finally {
    await emulator.close();
  }
}

describe('fault injection', () => {
  it('fails predictions at the configured rate, identically for the same seed', async () => {
    const first = await failurePattern({ seed: 42, faults: { failRate: 0.3 } }, 200);
    const second = await failurePattern({ seed: 42, faults: { failRate: 0.3 } }, 200);
    expect(second).toEqual(first);
    const failed = first.filter(Boolean).length;
    expect(failed).toBeGreaterThan(40);
    expect(failed).toBeLessThan(80);
  });

  describe('request faults', () => {
    const { call, emulator } = useEmulator({ seed: 3 });

    it('answers 503 before doing any work at the configured rate', async () => {
      emulator().setFaults({ serverErrorRate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++)
        statuses.push((await call('POST', I1, createBody({ prompt: `s${i}` }))).status);
      emulator().setFaults({ serverErrorRate: 0 });
      const errors = statuses.filter((s) => s === 503).length;
      expect(errors).toBeGreaterThan(30);
      expect(errors).toBeLessThan(70);
      expect(statuses.every((s) => s === 503 || s === 200)).toBe(true);
      expect(emulator().ledger().predictionsCreated).toBe(100 - errors);
    });

    it('drops the connection after the prediction was created', async () => {
      emulator().setFaults({ dropConnectionRate: 1 });
      const before = emulator().ledger().predictionsCreated;
      await expect(call('POST', I1, createBody({ prompt: 'lost reply' }))).rejects.toThrow();
      emulator().setFaults({ dropConnectionRate: 0 });
      expect(emulator().ledger().predictionsCreated).toBe(before + 1);
      const found = await call('GET', '/search?q=lost%20reply');
      expect(found.body.data).toHaveLength(1);
      expect(found.body.data[0].prediction.input_parameters).toEqual({ prompt: 'lost reply' });
    });

    it('truncates downloads: Content-Length promises more than is sent', async () => {
      const created = await call('POST', I1, createBody({ prompt: 'cut' }));
      const done = await settled(call, created.body.id);
      emulator().setFaults({ truncateDownloadRate: 1 });
      const response = await fetch(done.output_data.urls[0]);
      expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
      await expect(response.arrayBuffer()).rejects.toThrow();
      emulator().setFaults({ truncateDownloadRate: 0, slowDownloadMs: 50 });
      const slow = await fetch(done.output_data.urls[0]);
      expect((await slow.arrayBuffer()).byteLength).toBe(Number(slow.headers.get('content-length')));
      emulator().setFaults({ slowDownloadMs: 0 });
    });
  });
});

/**
 * The embedded stack's emulator keeps its state in a file (`stateFile`): a restart loses no
 * prediction, no credit and no idempotency key, so a resumed campaign pays for nothing twice.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../emulator/index.ts';
import { UNHURRIED } from '../helpers/emulator.ts';

async function start(stateFile: string, options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ stateFile, seed: 3, limits: UNHURRIED, jitter: false, ...options });
  onTestFinished(() => emulator.close());
  return emulator;
}

async function call(emulator: RunningEmulator, method: string, path: string, body?: unknown, key?: string) {
  const response = await fetch(`${emulator.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${emulator.apiKey}`,
      'content-type': 'application/json',
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: raw JSON from the wire, checked field by field
  return { status: response.status, body: (await response.json()) as any };
}

const I1 = '/mf-i1/i1-base/predictions';
const V1 = '/mf-v1/v1-base/predictions';

describe('emulator state file', () => {
  it('restores predictions, credits, idempotency keys, files and the ledger after a restart', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'mediaflow-emustate-')), 'emulator.json');
    const apiKey = 'mfk_persisted_key_for_tests';
    const first = await start(stateFile, { apiKey, latencyMs: 20 });
    const done = await call(first, 'POST', I1, { input: { prompt: 'kept' }, image_count: 1 }, 'job-a');
    expect(done.status).toBe(200);
    const upload = await call(first, 'POST', '/files', {
      filename: 'in.png',
      content_type: 'image/png',
      data: Buffer.from('not really a png').toString('base64'),
    });
    await new Promise((resolve) => setTimeout(resolve, 100)); // job-a succeeds
    const balance = (await call(first, 'GET', '/account/balance')).body.credits;
    const ledger = first.ledger();
    await first.close();
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);

    const second = await start(stateFile, { apiKey });
    const restored = await call(second, 'GET', `/predictions/${done.body.id}`);
    expect(restored.body).toMatchObject({ status: 'succeeded', credits_used: done.body.credits_used });
    // Its output is served again, from the new process (link rebuilt on its origin).
    const output = await fetch(restored.body.output_data.urls[0]);
    expect(output.status).toBe(200);
    expect(output.headers.get('content-type')).toBe('image/png');
    expect((await call(second, 'GET', '/account/balance')).body.credits).toBe(balance);
    // The same key and body is the same prediction, not a second charge.
    const replay = await call(second, 'POST', I1, { input: { prompt: 'kept' }, image_count: 1 }, 'job-a');
    expect(replay.body.id).toBe(done.body.id);
    expect((await call(second, 'GET', '/account/balance')).body.credits).toBe(balance);
    const file = await fetch((await call(second, 'GET', `/files/${upload.body.id}`)).body.url, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(await file.text()).toBe('not really a png');
    expect(second.ledger()).toMatchObject({
      predictionsCreated: ledger.predictionsCreated,
      byIdempotencyKey: { 'job-a': 1 },
      creditsCharged: ledger.creditsCharged,
      duplicates: 0,
    });
    // New ids follow on from the restored ones.
    const next = await call(second, 'POST', I1, { input: { prompt: 'new' }, image_count: 1 }, 'job-b');
    expect(next.body.id).toBe(done.body.id + 1);
  });

  it('finishes a prediction that was running when it stopped, at its due time', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'mediaflow-emustate-')), 'emulator.json');
    const first = await start(stateFile, { latencyMs: 1_500 });
    const running = await call(first, 'POST', V1, { input: { prompt: 'slow clip' }, image_count: 1 }, 'clip');
    expect(running.body.status).toBe('processing');
    await first.close();

    const second = await start(stateFile, { apiKey: first.apiKey, latencyMs: 60_000 });
    expect((await call(second, 'GET', `/predictions/${running.body.id}`)).body.status).toBe('processing');
    // It holds its in-flight slot again.
    expect((await call(second, 'GET', '/account/rate-limits')).body.remaining.in_flight).toBe(49);
    await new Promise((resolve) => setTimeout(resolve, 1_700)); // its original 1.5 s, not the new 60 s
    const finished = await call(second, 'GET', `/predictions/${running.body.id}`);
    expect(finished.body.status).toBe('succeeded');
    expect((await fetch(finished.body.output_data.urls[0])).status).toBe(200);
    expect(second.ledger()).toMatchObject({ predictionsCreated: 1, duplicates: 0 });
  });

  it('refuses to start on a damaged state file instead of starting empty', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'mediaflow-emustate-')), 'emulator.json');
    writeFileSync(stateFile, '{"version":1,"predictions":[');
    await expect(startEmulator({ stateFile })).rejects.toThrow(/is not JSON.*move it away/);
    expect(readFileSync(stateFile, 'utf8')).toBe('{"version":1,"predictions":['); // left for the user
  });
});

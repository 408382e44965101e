import { describe, expect, it } from 'vitest';
import { createBody, I1, useEmulator } from './helpers.ts';

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

describe('idempotency keys', () => {
  const { call, emulator } = useEmulator();

  it('returns the same prediction for the same key and body, charged once', async () => {
    const body = createBody({ prompt: 'same', aspect_ratio: '1:1' });
    const first = await call('POST', I1, body, withKey('job-1'));
    const again = await call(
      'POST',
      I1,
      createBody({ aspect_ratio: '1:1', prompt: 'same' }),
      withKey('job-1'),
    );
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await call('GET', '/account/balance')).body.credits).toBe('999.88');
    expect(emulator().ledger()).toMatchObject({
      predictionsCreated: 1,
      byIdempotencyKey: { 'job-1': 1 },
      duplicates: 0,
    });
  });

  it('refuses the same key with a different body', async () => {
    await call('POST', I1, createBody({ prompt: 'one' }), withKey('job-2'));
    const reused = await call('POST', I1, createBody({ prompt: 'two' }), withKey('job-2'));
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('shares keys between single and batch creates', async () => {
    const single = await call('POST', I1, createBody({ prompt: 'shared' }), withKey('job-3'));
    const batch = await call('POST', '/predictions/batch', {
      requests: [
        { model: 'mf-i1/i1-base', input: { prompt: 'shared' }, image_count: 1, idempotency_key: 'job-3' },
      ],
    });
    expect(batch.body.items[0].prediction.id).toBe(single.body.id);
  });

  it('creates every request anew when told to ignore keys, and counts the duplicates', async () => {
    emulator().setIgnoreIdempotency(true);
    const a = await call('POST', I1, createBody({ prompt: 'drill' }), withKey('job-4'));
    const b = await call('POST', I1, createBody({ prompt: 'drill' }), withKey('job-4'));
    const c = await call('POST', I1, createBody({ prompt: 'drill' }), withKey('job-4'));
    emulator().setIgnoreIdempotency(false);
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    const ledger = emulator().ledger();
    expect(ledger.byIdempotencyKey['job-4']).toBe(3);
    expect(ledger.duplicates).toBe(2);
  });
});

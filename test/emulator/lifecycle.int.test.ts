import { describe, expect, it } from 'vitest';
import { createBody, I1, settled, useEmulator, V1 } from './helpers.ts';

describe('prediction lifecycle', () => {
  const { call, emulator } = useEmulator();

  it('creates a processing prediction that succeeds with a CDN output', async () => {
    const created = await call('POST', I1, createBody({ prompt: 'a lighthouse', aspect_ratio: '16:9' }));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      status: 'processing',
      model: 'mf-i1',
      model_version: 'i1-base',
      credits_used: '0.12',
      input_parameters: { prompt: 'a lighthouse', aspect_ratio: '16:9' },
      output_data: { urls: [] },
    });
    expect(Number.isInteger(created.body.id)).toBe(true);
    const done = await settled(call, created.body.id);
    expect(done.status).toBe('succeeded');
    expect(done.output_data.urls).toEqual([`${emulator().cdnUrl}/outputs/${created.body.id}.png`]);
  });

  it('gives I2 records an upstream_id and others none', async () => {
    const i2 = await call('POST', '/mf-i2/i2-base/predictions', createBody({ prompt: 'x' }));
    const i1 = await call('POST', I1, createBody({ prompt: 'x' }));
    expect(i2.body.upstream_id).toMatch(/^up_/);
    expect(i1.body).not.toHaveProperty('upstream_id');
  });

  it('refuses to cancel a finished prediction', async () => {
    const created = await call('POST', I1, createBody({ prompt: 'done soon' }));
    await settled(call, created.body.id);
    const cancel = await call('POST', `/predictions/${created.body.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('NOT_CANCELABLE');
  });

  it('answers 404 PREDICTION_NOT_FOUND for unknown ids', async () => {
    for (const id of ['999999', 'abc']) {
      const reply = await call('GET', `/predictions/${id}`);
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('PREDICTION_NOT_FOUND');
    }
  });
});

describe('slow predictions', () => {
  const { call, emulator } = useEmulator({ timeScale: 1, latencyMs: 60_000 });

  it('cancels a processing prediction, refunds it and counts it', async () => {
    const before = (await call('GET', '/account/balance')).body.credits;
    const created = await call('POST', V1, createBody({ prompt: 'a long shot', duration: '10' }));
    expect(created.body.credits_used).toBe('2.30');
    expect((await call('GET', '/account/balance')).body.credits).not.toBe(before);
    const canceled = await call('POST', `/predictions/${created.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', credits_used: '0.00' });
    expect((await call('GET', '/account/balance')).body.credits).toBe(before);
    expect(emulator().ledger().canceledPredictions).toBe(1);
  });
});

describe('failing predictions', () => {
  const { call, emulator } = useEmulator({ faults: { failRate: 1 } });

  it('fails with an error code and message, refunded', async () => {
    const created = await call('POST', I1, createBody({ prompt: 'doomed' }));
    const done = await settled(call, created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(done.credits_used).toBe('0.00');
    expect((await call('GET', '/account/balance')).body.credits).toBe('1000.00');
    expect(emulator().ledger()).toMatchObject({ failedPredictions: 1, creditsCharged: '0.00' });
  });
});

import { describe, expect, it } from 'vitest';
import { createBody, useEmulator, V1 } from './helpers.ts';

describe('credits and prices', () => {
  const { call } = useEmulator({ credits: '5.00' });

  it('estimates exactly what a create charges, including the emulator V5 rule', async () => {
    const cases = [
      ['mf-v1/v1-base', { prompt: 'x', resolution: '480p', duration: '10' }, '0.50'],
      ['mf-v2/v2-base', { prompt: 'x', generate_audio: false, duration: '4' }, '0.60'],
      ['mf-v4/v4-base', { prompt: 'x', start_image: 'https://example.com/a.png', mode: 'pro' }, '0.65'],
      ['mf-v5/v5-base', { prompt: 'x' }, '0.42'],
      ['mf-v5/v5-base', { prompt: 'x', resolution: '1080p', duration: '10' }, '1.20'],
      ['mf-i3/i3-base', { prompt: 'x' }, '0.25'],
    ] as const;
    for (const [model, input, price] of cases) {
      const estimate = await call('POST', '/estimate', { model, input });
      expect(estimate.body).toEqual({ model, credits: price });
    }
    const created = await call('POST', '/mf-v5/v5-base/predictions', createBody({ prompt: 'x' }));
    expect(created.body.credits_used).toBe('0.42');
  });

  it('refuses a create it cannot be paid for with 402, and reports usage', async () => {
    const expensive = createBody({ prompt: 'x', duration: '10' }); // 2.30 at the 1080p default
    expect((await call('POST', V1, expensive)).status).toBe(200);
    const refused = await call('POST', V1, expensive);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      type: 'insufficient_credits_error',
    });
    expect(refused.body.error.message).toContain('2.30');
    expect((await call('GET', '/account/balance')).body).toEqual({ credits: '2.28', currency: 'USD' });
    const usage = (await call('GET', '/account/usage')).body;
    expect(usage).toMatchObject({ predictions: 2, credits: '2.72' });
    expect(usage.by_model).toContainEqual({ model: 'mf-v1/v1-base', predictions: 1, credits: '2.30' });
  });
});

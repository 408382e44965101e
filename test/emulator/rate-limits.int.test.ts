import { describe, expect, it } from 'vitest';
import { createBody, I1, useEmulator } from './helpers.ts';

describe('rate limits', () => {
  const { call, emulator } = useEmulator({ limits: { createsPerMinute: 180, requestsPerMinute: 1000 } });

  it('reports the limits', async () => {
    const limits = (await call('GET', '/account/rate-limits')).body;
    expect(limits).toMatchObject({ creates_per_minute: 180, requests_per_minute: 1000, max_in_flight: 50 });
    // The bucket holds one second of tokens: 180/min is 3 a second, in bursts of 3.
    expect(limits.remaining.creates).toBe(3);
  });

  it('answers 429 with Retry-After, retry-after-ms and X-RateLimit headers once the bucket is empty', async () => {
    const replies = [];
    const started = performance.now();
    for (let i = 0; i < 4; i++) replies.push(await call('POST', I1, createBody({ prompt: `n${i}` })));
    const elapsed = performance.now() - started;
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(replies[0]!.headers.get('x-ratelimit-limit')).toBe('180');
    expect(replies[0]!.headers.get('x-ratelimit-remaining')).toBe('2');
    const refused = replies[3]!;
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', type: 'rate_limit_error' });
    // 3/s refills one token every 333 ms, counted from the first create; Retry-After rounds up to
    // whole seconds. The lower bound allows for the time the four calls took on a loaded machine.
    expect(Number(refused.headers.get('retry-after'))).toBe(1);
    expect(Number(refused.headers.get('retry-after-ms'))).toBeGreaterThanOrEqual(Math.floor(333 - elapsed));
    expect(Number(refused.headers.get('retry-after-ms'))).toBeLessThanOrEqual(334);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(emulator().ledger().rateLimited).toBe(1);
  });

  it('counts every batch item as one create', async () => {
    emulator().setLimits({ createsPerMinute: 120 });
    const item = (n: number) => ({
      model: 'mf-i1/i1-base',
      input: { prompt: `b${n}` },
      image_count: 1,
      idempotency_key: `b${n}`,
    });
    const refused = await call('POST', '/predictions/batch', { requests: [item(1), item(2), item(3)] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('exceeds the burst of 2 creates');
  });
});

describe('predictions in flight', () => {
  const { call } = useEmulator({ timeScale: 1, latencyMs: 60_000, limits: { maxInFlight: 2 } });

  it('refuses a third prediction in flight with 429 TOO_MANY_IN_FLIGHT until one settles', async () => {
    const first = await call('POST', I1, createBody({ prompt: 'a' }));
    await call('POST', I1, createBody({ prompt: 'b' }));
    const third = await call('POST', I1, createBody({ prompt: 'c' }));
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('TOO_MANY_IN_FLIGHT');
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await call('GET', '/account/rate-limits')).body.remaining.in_flight).toBe(0);
    await call('POST', `/predictions/${first.body.id}/cancel`);
    expect((await call('POST', I1, createBody({ prompt: 'c' }))).status).toBe(200);
  });
});

import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type Ids } from './endpoints.ts';
import { serviceError, useEmulator } from './harness.ts';

const contract = useEmulator();
const guarded = ENDPOINTS.filter((endpoint) => !endpoint.public);
const unknownIds: Ids = {
  prediction: '999999',
  batch: 'batch_missing',
  file: 'file_missing',
  apiKey: 'key_missing',
};

describe('every endpoint refuses a bad API key with 401', () => {
  it.each(guarded)('$name', async ({ call }) => {
    const stranger = contract.clientWithKey('mfk_not_a_key_of_this_account');
    const error = await serviceError(() => call(stranger, unknownIds));
    expect(error).toMatchObject({
      status: 401,
      type: 'authentication_error',
      retryable: false,
      maybeCreated: false,
    });
    expect(JSON.stringify(error)).not.toContain('mfk_not_a_key_of_this_account');
  });
});

describe('public endpoints answer without a key', () => {
  it.each(ENDPOINTS.filter((endpoint) => endpoint.public))('$name', async ({ call }) => {
    await expect(
      call(contract.clientWithKey('mfk_not_a_key_of_this_account'), unknownIds),
    ).resolves.toBeDefined();
  });
});

describe('every endpoint answers 429 with Retry-After once its key is over the limit', () => {
  it.each(guarded)('$name', async ({ call }) => {
    const { client, emulator } = contract;
    const key = await client.apiKeys.create('rate-limited');
    const limited = contract.clientWithKey(key.key!);
    emulator.setLimits({ requestsPerMinute: 1, createsPerMinute: 1 });
    try {
      // The first call may succeed or fail on its own merits; it spends the key's only token.
      await call(limited, unknownIds).catch(() => undefined);
      const error = await serviceError(() => call(limited, unknownIds));
      expect(error).toMatchObject({
        status: 429,
        type: 'rate_limit_error',
        retryable: true,
        maybeCreated: false,
      });
      expect(error.retryAfterMs).toBeGreaterThan(0);
    } finally {
      emulator.setLimits({ requestsPerMinute: 3000, createsPerMinute: 600 });
    }
  });
});

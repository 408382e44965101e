import { describe, expect, inject, it } from 'vitest';
import { ConfigurationError, openEnvironment } from '../../cli/environment.ts';

/** Temporal at a port nothing listens on: a check that passes would fail there instead. */
const base = { TEMPORAL_ADDRESS: '127.0.0.1:1', MEDIAFLOW_API_KEY: 'k' };

describe('openEnvironment refuses unsafe service settings in one line, before connecting', () => {
  it.each([
    [
      { MEDIAFLOW_API_URL: 'http://203.0.113.5/v1' },
      /^MEDIAFLOW_API_URL .* plain http .*use https:\/\/203\.0\.113\.5\/v1$/,
    ],
    [{ MEDIAFLOW_API_URL: 'not a url' }, /^MEDIAFLOW_API_URL is not a URL/],
    [
      { MEDIAFLOW_API_URL: 'https://203.0.113.5/v1', MEDIAFLOW_MAX_DOWNLOAD_BYTES: 'lots' },
      /^MEDIAFLOW_MAX_DOWNLOAD_BYTES must be a whole number/,
    ],
  ])('%j', async (settings, message) => {
    const opening = openEnvironment({ service: true }, { ...base, ...settings });
    await expect(opening).rejects.toBeInstanceOf(ConfigurationError);
    await expect(opening).rejects.toThrow(message);
    await expect(opening).rejects.not.toThrow(/\n/);
  });
});

describe('openEnvironment with TEMPORAL_ADDRESS and no service settings', () => {
  it('serves the commands that need no service (status, cancel, review) and names the fix if one reaches for it', async () => {
    const env = await openEnvironment({ service: false }, { TEMPORAL_ADDRESS: inject('temporalAddress') });
    try {
      expect(env.embedded).toBeNull();
      expect(() => env.service).toThrow(ConfigurationError);
      expect(() => env.service).toThrow(/MEDIAFLOW_API_URL is not: set MEDIAFLOW_API_URL/);
    } finally {
      await env.close();
    }
  });
});

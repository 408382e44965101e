/**
 * Deny by default: the guard decides on the route fastify matched, so a path spelt with
 * percent-escapes (`/v%31/...`, which the router decodes to `/v1/...`) needs the same key and
 * takes the same rate-limit tokens as the plain spelling.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createContext } from '../../emulator/context.ts';
import { resolveOptions } from '../../emulator/options.ts';
import { buildServer } from '../../emulator/server.ts';
import { useEmulator } from './helpers.ts';

/** fetch keeps percent-escapes as written, so these reach the server exactly so. */
const SPELLINGS = ['/v%31/api-keys', '/%76%31/account', '/v1/%61ccount/balance', '/v1/api%2Dkeys'];

describe('access, however the path is spelt', () => {
  const { call, emulator } = useEmulator();
  const raw = (path: string, key: string | null) =>
    fetch(`${new URL(emulator().baseUrl).origin}${path}`, {
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
    });

  it.each(SPELLINGS)('%s needs a key', async (path) => {
    const anonymous = await raw(path, null);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    expect((await raw(path, 'mfk_wrong')).status).toBe(401);
    expect((await raw(path, emulator().apiKey)).status).toBe(200);
  });

  it('leaves health open and the OpenAPI document behind the key', async () => {
    expect((await raw('/v%31/health', null)).status).toBe(200);
    expect((await raw('/v%31/openapi.json', null)).status).toBe(401);
  });

  it('rate limits an encoded spelling like the plain one', async () => {
    const key = (await call('POST', '/api-keys', { name: 'limited' })).body.key as string;
    emulator().setLimits({ requestsPerMinute: 60 });
    try {
      // 60/min holds one token: the first request spends it, whatever its spelling.
      expect((await raw('/v%31/account', key)).status).toBe(200);
      const refused = await raw('/%76%31/account', key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      emulator().setLimits({ requestsPerMinute: 6_000_000 });
    }
  });
});

describe('the emulator controls', () => {
  const app = buildServer(createContext(resolveOptions({ apiKey: 'mfk_admin_test' })));
  afterAll(() => app.close());

  it.each(['/_emulator/ledger', '/%5Femulator/ledger', '/_emulator/%6Cedger'])(
    '%s answers loopback only',
    async (url) => {
      expect((await app.inject({ url, remoteAddress: '127.0.0.1' })).statusCode).toBe(200);
      const outside = await app.inject({ url, remoteAddress: '192.0.2.7' });
      expect(outside.statusCode).toBe(404);
      // A key does not open them from elsewhere either.
      const keyed = await app.inject({
        url,
        remoteAddress: '192.0.2.7',
        headers: { authorization: 'Bearer mfk_admin_test' },
      });
      expect(keyed.statusCode).toBe(404);
    },
  );
});

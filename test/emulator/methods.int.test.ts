/** A method a known path does not serve: 405 with `Allow` (RFC 9110), not a 404 about the URL. */
import { describe, expect, it } from 'vitest';
import { useEmulator } from './helpers.ts';

describe('undeclared methods', () => {
  const { call } = useEmulator();

  it('answers 405 with Allow to a method a known path does not serve, however the path is spelt', async () => {
    const put = await call('PUT', '/files');
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(put.body.error.code).toBe('METHOD_NOT_ALLOWED');
    const patch = await call('PATCH', '/api-keys/key_1', '{"not json');
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('DELETE');
    // The path's access is checked first, as on its served methods.
    expect((await call('PUT', '/account', undefined, { key: null })).status).toBe(401);
    expect((await call('GET', '/nowhere')).status).toBe(404);
  });
});

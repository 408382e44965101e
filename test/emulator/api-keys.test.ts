import { describe, expect, it } from 'vitest';
import { useEmulator } from './helpers.ts';

describe('API keys', () => {
  const { call } = useEmulator();

  it('refuses requests without a key or with an unknown one', async () => {
    const none = await call('GET', '/account', undefined, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    const wrong = await call('GET', '/account', undefined, { key: 'mfk_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ code: 'INVALID_API_KEY', type: 'authentication_error' });
    expect(wrong.body.error.message).not.toContain('mfk_wrong');
  });

  it('creates a key that works, lists it without its secret, and deletes it', async () => {
    const created = await call('POST', '/api-keys', { name: 'ci' });
    expect(created.body).toMatchObject({ name: 'ci', key: expect.stringMatching(/^mfk_/) });
    expect((await call('GET', '/account', undefined, { key: created.body.key })).status).toBe(200);
    const list = (await call('GET', '/api-keys')).body;
    expect(list.data.map((k: { name: string }) => k.name)).toEqual(['default', 'ci']);
    expect(list.data.every((k: object) => !('key' in k))).toBe(true);
    expect((await call('DELETE', `/api-keys/${created.body.id}`)).body).toEqual({
      id: created.body.id,
      deleted: true,
    });
    expect((await call('GET', '/account', undefined, { key: created.body.key })).status).toBe(401);
    expect((await call('DELETE', `/api-keys/${created.body.id}`)).status).toBe(404);
  });

  it('rotates a key: the new secret works, the old one gets 401', async () => {
    const created = await call('POST', '/api-keys', { name: 'rotating' });
    const rotated = await call('POST', `/api-keys/${created.body.id}/rotate`);
    expect(rotated.body.id).toBe(created.body.id);
    expect(rotated.body.key).not.toBe(created.body.key);
    expect((await call('GET', '/account', undefined, { key: created.body.key })).status).toBe(401);
    expect((await call('GET', '/account', undefined, { key: rotated.body.key })).status).toBe(200);
    expect((await call('GET', '/account')).status).toBe(200);
  });
});

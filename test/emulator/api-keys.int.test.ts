import { describe, expect, it } from 'vitest';
import { KeyStore } from '../../emulator/auth/keys.ts';
import { ApiError } from '../../emulator/http/errors.ts';
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

  it('refuses to let a key delete itself, which would lock its holder out until a restart', async () => {
    const own = (await call('GET', '/api-keys')).body.data[0];
    const refused = await call('DELETE', `/api-keys/${own.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'API_KEY_IN_USE', type: 'conflict_error', param: 'id' });
    expect((await call('GET', '/account')).status).toBe(200);
    // Another key may delete it: its holder chose to.
    const other = await call('POST', '/api-keys', { name: 'admin' });
    const spare = await call('POST', '/api-keys', { name: 'spare' });
    const deleted = await call('DELETE', `/api-keys/${spare.body.id}`, undefined, { key: other.body.key });
    expect(deleted.status).toBe(200);
  });
});

describe('the last API key', () => {
  it('cannot be deleted, whoever asks', () => {
    const store = new KeyStore('mfk_only_key_of_the_account');
    const only = store.list()[0]!;
    const refusal = (() => {
      try {
        store.delete(only.id, 'key_elsewhere');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ code: 'LAST_API_KEY', status: 409 });
    expect(store.authenticate('mfk_only_key_of_the_account')).toBe(only);
  });
});

describe('key prefixes', () => {
  const { call } = useEmulator({ apiKey: 'devkey' });

  it('never show a short key whole', async () => {
    const [listed] = (await call('GET', '/api-keys')).body.data;
    expect(listed.prefix).toBe('dev');
    expect(listed.prefix).not.toBe('devkey');
  });

  it('show at most 8 characters of a long one', async () => {
    const created = await call('POST', '/api-keys', { name: 'long' });
    const listed = (await call('GET', '/api-keys')).body.data.find(
      (k: { id: string }) => k.id === created.body.id,
    );
    expect(listed.prefix).toBe(created.body.key.slice(0, 8));
  });
});

/**
 * The emulator's edges: it answers only to its own Host names (a DNS-rebinding page gets 421 on
 * every route, the key-less controls and the CDN included), and serves uploads only to the key's
 * holder, as their declared image or video type or as opaque bytes, at unguessable URLs.
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostAllowed } from '../../emulator/http/host-check.ts';
import { useEmulator } from './helpers.ts';

/** A raw GET with a Host of our choosing (fetch always sends the URL's own). */
function getWithHost(url: string, host: string, key?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { host, ...(key ? { authorization: `Bearer ${key}` } : {}) } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the Host header', () => {
  const { emulator } = useEmulator({ allowedHosts: ['emulator'] });

  it.each([
    '/_emulator/ledger',
    '/v1/health',
    '/v1/account',
    '/cdn/outputs/1.png',
    '/cdn/files/file_x/a.png',
    '/no/such/route',
  ])('a rebinding name is refused with 421 on %s, even with the key', async (path) => {
    const origin = new URL(emulator().baseUrl).origin;
    for (const host of ['evil.example', 'evil.example:4010', 'attacker.test.', 'localhost.evil.example']) {
      expect(await getWithHost(`${origin}${path}`, host, emulator().apiKey)).toBe(421);
    }
  });

  it('its own names are served', async () => {
    const origin = new URL(emulator().baseUrl).origin;
    const port = new URL(origin).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      `[::1]:${port}`,
      'emulator:4010',
    ]) {
      expect(await getWithHost(`${origin}/v1/health`, host)).toBe(200);
    }
  });

  it.each<[string | undefined, boolean]>([
    [undefined, true],
    ['127.0.0.1', true],
    ['10.0.0.7:4010', true],
    ['[fe80::1]:80', true],
    ['localhost', true],
    ['app.localhost:3000', true],
    ['emulator', true],
    ['Emulator.:4010', true],
    ['', false],
    ['evil.example', false],
    ['127.0.0.1.nip.io', false],
    ['localhost.evil.example', false],
    ['emulator.evil.example', false],
  ])('Host %j: %s', (header, allowed) => {
    expect(hostAllowed(header, new Set(['emulator']))).toBe(allowed);
  });
});

describe('uploads', () => {
  const { emulator, call } = useEmulator({ allowedHosts: [] });
  const upload = async (contentType: string, data = '<script>alert(1)</script>') =>
    (
      await call('POST', '/files', {
        filename: 'x',
        content_type: contentType,
        data: Buffer.from(data).toString('base64'),
      })
    ).body as { id: string; url: string };
  const get = (url: string, key: string | null = emulator().apiKey) =>
    fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});

  it('are served only with a valid key', async () => {
    const file = await upload('image/png');
    expect((await get(file.url, null)).status).toBe(401);
    expect((await get(file.url, 'mfk_not_the_key')).status).toBe(401);
    expect((await get(file.url)).status).toBe(200);
  });

  it.each([
    ['image/png', 'image/png'],
    ['video/mp4', 'video/mp4'],
    ['image/jpeg', 'image/jpeg'],
    ['text/html', 'application/octet-stream'],
    ['image/svg+xml', 'application/octet-stream'],
    ['application/javascript', 'application/octet-stream'],
    ['text/plain', 'application/octet-stream'],
  ])('declared %s is served as %s, never sniffed', async (declared, served) => {
    const response = await get((await upload(declared)).url);
    expect(response.headers.get('content-type')).toBe(served);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('live at unguessable URLs: not sequential, 128 random bits', async () => {
    const files = [await upload('image/png'), await upload('image/png'), await upload('image/png')];
    const ids = files.map((file) => file.id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^file_[0-9a-f]{32}$/);
    for (const file of files) expect(file.url).toContain(file.id);
    // The next id is not derivable from the last: no shared prefix beyond chance.
    expect(ids[1]!.slice(0, 16)).not.toBe(ids[0]!.slice(0, 16));
    expect((await get(files[0]!.url.replace(ids[0]!, 'file_1'))).status).toBe(404);
  });
});

describe('stored uploads', () => {
  const stateFile = join(mkdtempSync(join(tmpdir(), 'mediaflow-uploads-')), 'emulator.json');
  // A umask that would leave them world-readable: the modes must not depend on it.
  const { call } = useEmulator({ stateFile });

  it('are written 0600 in a 0700 folder', async () => {
    const previous = process.umask(0o022);
    try {
      const reply = await call('POST', '/files', {
        filename: 'a.png',
        content_type: 'image/png',
        data: Buffer.from('bytes').toString('base64'),
      });
      expect(reply.status).toBe(200);
    } finally {
      process.umask(previous);
    }
    const blobs = `${stateFile}.files`;
    expect(statSync(blobs).mode & 0o777).toBe(0o700);
    const names = readdirSync(blobs);
    expect(names).toHaveLength(1);
    expect(statSync(join(blobs, names[0]!)).mode & 0o777).toBe(0o600);
  });
});

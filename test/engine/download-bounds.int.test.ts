/**
 * The bounds of one download (activities/download-bounds.ts): a body that arrives short or
 * stalls is fetched again up to the bound, then fails for good with the fault of each fetch,
 * named `download_failed` or `download_stalled` by the failure policy; a body that recovers on a
 * later fetch is saved whole. Against a local CDN whose faults are counted per request.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { downloadFile } from '../../activities/download.ts';
import { DEFAULT_BOUNDS, type DownloadBounds, downloadBounds } from '../../activities/download-bounds.ts';
import { failureKindOf } from '../../activities/failure-kind.ts';
import type { AddressClass, LinkPolicy, ServiceError } from '../../api/client/index.ts';
import { LocalStore } from '../../store/index.ts';

const BODY = Buffer.alloc(4_000, 7);
const policy: LinkPolicy = { allowed: new Set<AddressClass>(['loopback']), maxBytes: 1e6, maxRedirects: 5 };

/**
 * `/short/<n>`: the first n fetches send half the body and hang up, later ones all of it;
 * `/trickle`: a byte every 100 ms; `/slow`: 100 bytes every 50 ms (fast enough, but long).
 */
async function cdn(): Promise<{ base: string; fetches: () => number }> {
  let fetches = 0;
  const server = createServer((request, response) => {
    fetches++;
    const [, route, arg] = new URL(request.url!, 'http://x').pathname.split('/');
    response.writeHead(200, { 'content-length': BODY.length });
    if (route === 'short') {
      if (fetches > Number(arg)) return response.end(BODY);
      return response.write(BODY.subarray(0, BODY.length / 2), () => response.destroy());
    }
    const [every, size] = route === 'trickle' ? [100, 1] : [50, 100];
    let sent = 0;
    const drip = setInterval(() => {
      response.write(BODY.subarray(sent, sent + size));
      sent += size;
      if (sent >= BODY.length) response.end();
      if (sent >= BODY.length || response.destroyed) clearInterval(drip);
    }, every);
    response.on('close', () => clearInterval(drip));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fetches: () => fetches };
}

async function download(url: string, bounds: Partial<DownloadBounds>) {
  const dir = await mkdtemp(join(tmpdir(), 'mediaflow-bounds-'));
  const target = { store: new LocalStore(dir), key: 'a.png' };
  const result = downloadFile(url, target, {
    cleanUp: false,
    policy,
    bounds: { ...DEFAULT_BOUNDS, ...bounds },
  });
  return { dir, result };
}

describe('a download short or stalled, within bounds', () => {
  it('a body short on every fetch fails for good after the bound, as download_failed, leaving nothing', async () => {
    const { base, fetches } = await cdn();
    const { dir, result } = await download(`${base}/short/99`, { fetches: 3 });
    const error = (await result.catch((e: unknown) => e)) as ServiceError;
    expect(error).toMatchObject({ code: 'DOWNLOAD_SHORT', retryable: false });
    expect(error.message).toMatch(
      /\/short\/99 gave up after 3 fetches: fetch 1 stopped after \d+ of 4000 bytes .*; fetch 3 stopped/,
    );
    expect(failureKindOf(error)).toBe('download_failed');
    expect(fetches()).toBe(3);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a body short once is fetched again and saved whole', async () => {
    const { base, fetches } = await cdn();
    const { dir, result } = await download(`${base}/short/1`, { fetches: 3 });
    await expect(result).resolves.toMatchObject({ bytes: BODY.length });
    expect(fetches()).toBe(2);
    expect(await readFile(join(dir, 'a.png'))).toEqual(BODY);
  });

  it('a trickle under the minimum rate counts as a fetch; the last one stalled: download_stalled', async () => {
    const { base, fetches } = await cdn();
    const { dir, result } = await download(`${base}/trickle`, {
      fetches: 2,
      windowMs: 400,
      minBytesPerSecond: 1_000,
    });
    const error = (await result.catch((e: unknown) => e)) as ServiceError;
    expect(error).toMatchObject({ code: 'DOWNLOAD_STALLED', retryable: false });
    expect(error.message).toMatch(
      /gave up after 2 fetches: fetch 1 stalled: \d+ bytes in 0.4 s, under the minimum 1000 bytes\/s/,
    );
    expect(failureKindOf(error)).toBe('download_stalled');
    expect(fetches()).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it('the overall deadline ends a body that keeps the rate but takes too long, whatever fetches are left', async () => {
    const { base, fetches } = await cdn();
    const { result } = await download(`${base}/slow`, { fetches: 5, deadlineMs: 300, minBytesPerSecond: 0 });
    const error = (await result.catch((e: unknown) => e)) as ServiceError;
    expect(error).toMatchObject({ code: 'DOWNLOAD_STALLED' });
    expect(error.message).toMatch(/when the download deadline \(0.3 s\) passed/);
    expect(fetches()).toBe(1);
  });
});

describe('download bounds from the environment', () => {
  it('defaults: 3 fetches, 30 minutes, 16 KiB/s over 20 s windows', () => {
    expect(downloadBounds({})).toEqual({
      fetches: 3,
      deadlineMs: 1_800_000,
      minBytesPerSecond: 16_384,
      windowMs: 20_000,
    });
  });

  it('reads each setting, and a rate of 0 turns the rate check off', () => {
    expect(
      downloadBounds({
        MEDIAFLOW_DOWNLOAD_FETCHES: '5',
        MEDIAFLOW_DOWNLOAD_DEADLINE_S: '90',
        MEDIAFLOW_DOWNLOAD_MIN_RATE: '0',
        MEDIAFLOW_DOWNLOAD_RATE_WINDOW_S: '2.5',
      }),
    ).toEqual({ fetches: 5, deadlineMs: 90_000, minBytesPerSecond: 0, windowMs: 2_500 });
  });

  it.each([
    ['MEDIAFLOW_DOWNLOAD_FETCHES', '0'],
    ['MEDIAFLOW_DOWNLOAD_FETCHES', '2.5'],
    ['MEDIAFLOW_DOWNLOAD_DEADLINE_S', 'soon'],
    ['MEDIAFLOW_DOWNLOAD_MIN_RATE', '-1'],
  ])('refuses %s=%s with its name', (name, value) => {
    expect(() => downloadBounds({ [name]: value })).toThrow(name);
  });
});

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { DownloadRefused, downloadFile, type OutputTarget } from '../../activities/download.ts';
import { removeUnfinishedOutputs } from '../../activities/finish/sweep.ts';
import type { AddressClass, LinkPolicy } from '../../api/client/index.ts';
import { LocalStore } from '../../store/index.ts';
import { s3TestStore } from '../helpers/s3-store.ts';

const PICTURE = Buffer.from('not really a png, but 38 bytes of it!!');

/**
 * `/whole` sends the picture; `/short` promises more bytes than it sends; `/stream/<n>` sends n bytes
 * with no Content-Length; `/hop/<n>?…` redirects n more times before `/whole`; `/to?url=` redirects
 * there; `/gone/<status>` answers that status.
 */
async function cdn(): Promise<string> {
  const server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://x');
    const [, route, arg] = url.pathname.split('/');
    if (route === 'hop') {
      const next = Number(arg) > 0 ? `/hop/${Number(arg) - 1}${url.search}` : '/whole';
      return response.writeHead(302, { location: next }).end();
    }
    if (route === 'to') return response.writeHead(307, { location: url.searchParams.get('url')! }).end();
    if (route === 'gone') return response.writeHead(Number(arg)).end();
    if (route === 'stream') {
      response.writeHead(200); // chunked: no Content-Length to trust
      return response.end(Buffer.alloc(Number(arg), 1));
    }
    const short = url.pathname === '/short';
    response.writeHead(200, { 'content-length': PICTURE.length + (short ? 100 : 0) });
    if (short) response.write(PICTURE, () => response.destroy());
    else response.end(PICTURE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('downloadFile', () => {
  it('writes the file and reports its sha256 and size', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    const result = await downloadFile(`${await cdn()}/whole`, into(dir, 'still/a.png'), { cleanUp: false });
    expect(result).toEqual({
      sha256: createHash('sha256').update(PICTURE).digest('hex'),
      bytes: PICTURE.length,
    });
    expect(await readFile(join(dir, 'still', 'a.png'))).toEqual(PICTURE);
  });

  it('never leaves a truncated file in place, nor its temporary file, and gives up after its bounded fetches', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    await expect(
      downloadFile(`${await cdn()}/short`, into(dir, 'a.png'), { cleanUp: false }),
    ).rejects.toMatchObject({
      type: 'download_error',
      code: 'DOWNLOAD_SHORT',
      retryable: false,
      message: expect.stringMatching(
        /^download of http:\S+\/short gave up after 3 fetches: fetch 1 stopped after \d+ of 138 bytes/,
      ),
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('on a retry, removes what a killed attempt left beside its target, and only that', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    await writeFile(join(dir, 'a.png.0a1b2c3d.part'), 'half a picture');
    await writeFile(join(dir, 'b.png.0a1b2c3d.part'), 'another job, still downloading');
    await downloadFile(`${await cdn()}/whole`, into(dir, 'a.png'), { cleanUp: true });
    expect((await readdir(dir)).sort()).toEqual(['a.png', 'b.png.0a1b2c3d.part']);
  });

  it("once its campaign is over, removes what killed attempts left of its jobs' outputs and records, and only that", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    await mkdir(join(dir, 'hero'));
    await mkdir(join(dir, 'teaser'));
    await mkdir(join(dir, '.mediaflow', 'records'), { recursive: true });
    const files = {
      'hero/hero-a.png': 'a finished picture',
      // A timed-out attempt SIGKILLed mid-download, after the job's last attempt had finished.
      'hero/hero-a.png.0a1b2c3d.part': 'half a picture',
      'hero/hero-a.png.fedcba98.part': 'half a picture, killed again',
      'hero/hero-1.5.take2.jpg.12345678.part': 'half a second take',
      // Another campaign's job, writing to the same folder, still downloading.
      'hero/hero-b.png.0a1b2c3d.part': 'another job, still downloading',
      'teaser/teaser-a.mp4': 'a finished video',
      // A record's temporary, left by a kill between its write and its link; and another job's.
      '.mediaflow/records/ka.0badcafe.part': 'a record, half written',
      '.mediaflow/records/kb.0badcafe.part': "another job's record, being written",
    };
    for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
    const jobs = [
      { step: 'hero', name: 'hero-a', key: 'ka' },
      { step: 'hero', name: 'hero-1.5', key: 'k15' },
      { step: 'teaser', name: 'teaser-a', key: 'kta' },
    ];
    expect(await removeUnfinishedOutputs(new LocalStore(dir), ['hero', 'teaser'], jobs)).toEqual([
      '.mediaflow/records/ka',
      'hero/hero-1.5.take2.jpg',
      'hero/hero-a.png',
      'hero/hero-a.png',
    ]);
    expect(await readdir(join(dir, '.mediaflow', 'records'))).toEqual(['kb.0badcafe.part']);
    expect((await readdir(join(dir, 'hero'))).sort()).toEqual(['hero-a.png', 'hero-b.png.0a1b2c3d.part']);
    expect(await readdir(join(dir, 'teaser'))).toEqual(['teaser-a.mp4']);
  });

  it('streams into S3 with the same checks: whole objects with their sha256, never a truncated one', async () => {
    const store = s3TestStore('download');
    const base = await cdn();
    const result = await downloadFile(`${base}/whole`, { store, key: 'still/a.png' }, { cleanUp: false });
    expect(result.sha256).toBe(createHash('sha256').update(PICTURE).digest('hex'));
    expect(await store.stat('still/a.png')).toEqual({ bytes: PICTURE.length });
    const truncated = downloadFile(`${base}/short`, { store, key: 'still/b.png' }, { cleanUp: false });
    await expect(truncated).rejects.toMatchObject({
      type: 'download_error',
      code: 'DOWNLOAD_SHORT',
      retryable: false,
    });
    expect(await store.stat('still/b.png')).toBeUndefined();
  });
});

/** A target in a folder store. */
function into(dir: string, key: string): OutputTarget {
  return { store: new LocalStore(dir), key };
}

const loopback: LinkPolicy = {
  allowed: new Set<AddressClass>(['loopback']),
  maxBytes: 1000,
  maxRedirects: 5,
};

async function refusal(url: string, policy?: LinkPolicy): Promise<DownloadRefused> {
  const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
  const error = await downloadFile(url, into(dir, 'a.png'), {
    cleanUp: false,
    ...(policy ? { policy } : {}),
  }).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DownloadRefused);
  expect(error).toMatchObject({ retryable: false, code: 'DOWNLOAD_REFUSED' });
  expect(await readdir(dir)).toEqual([]); // nothing kept, not even a temporary file
  return error as DownloadRefused;
}

describe('downloadFile under the link policy', () => {
  // /hop/4 is five redirects, /hop/5 six.
  it('follows redirects (a CDN sending the file elsewhere), up to five', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    const result = await downloadFile(`${await cdn()}/hop/4`, into(dir, 'a.png'), {
      cleanUp: false,
      policy: loopback,
    });
    expect(result.bytes).toBe(PICTURE.length);
  });

  it('refuses a sixth redirect for good', async () => {
    expect((await refusal(`${await cdn()}/hop/5`, loopback)).reason).toBe('too_many_redirects');
  });

  it.each(['ftp://127.0.0.1/a.png', 'file:///etc/passwd'])('refuses %s: only http(s)', async (link) => {
    expect((await refusal(link, loopback)).reason).toBe('scheme');
  });

  it('checks every redirect under the same policy', async () => {
    const base = await cdn();
    expect((await refusal(`${base}/to?url=file:///etc/passwd`, loopback)).reason).toBe('scheme');
    const metadata = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
    expect((await refusal(`${base}/to?url=${metadata}`, loopback)).reason).toBe('address');
  });

  it('refuses loopback when the service is not there, by address literal and after DNS', async () => {
    const base = await cdn();
    vi.stubEnv('MEDIAFLOW_API_URL', 'https://203.0.113.10/v1'); // a public service
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    expect((await refusal(`${base}/whole`)).reason).toBe('address');
    const none: LinkPolicy = { ...loopback, allowed: new Set() };
    const viaDns = await refusal(`${base.replace('127.0.0.1', 'localhost')}/whole`, none);
    expect(viaDns.reason).toBe('address');
    expect(viaDns.message).toMatch(/localhost refused: it leads to .*a loopback address/);
  });

  it('caps the size while streaming, whatever Content-Length says', async () => {
    const base = await cdn();
    expect((await refusal(`${base}/stream/5000`, loopback)).reason).toBe('too_large');
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    const fits = await downloadFile(`${base}/stream/1000`, into(dir, 'a.png'), {
      cleanUp: false,
      policy: loopback,
    });
    expect(fits.bytes).toBe(1000);
  });

  it('reads the cap from MEDIAFLOW_MAX_DOWNLOAD_BYTES and refuses on Content-Length before reading', async () => {
    vi.stubEnv('MEDIAFLOW_MAX_DOWNLOAD_BYTES', String(PICTURE.length - 1));
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    expect((await refusal(`${await cdn()}/whole`)).reason).toBe('too_large');
  });

  it('a bad MEDIAFLOW_MAX_DOWNLOAD_BYTES fails the download with its reason, not a retry loop', async () => {
    vi.stubEnv('MEDIAFLOW_MAX_DOWNLOAD_BYTES', 'lots');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    await expect(
      downloadFile(`${await cdn()}/whole`, into(dir, 'a.png'), { cleanUp: false }),
    ).rejects.toMatchObject({
      code: 'DOWNLOAD_MISCONFIGURED',
      retryable: false,
      message: expect.stringMatching(/^MEDIAFLOW_MAX_DOWNLOAD_BYTES must be/),
    });
  });

  it.each([404, 410])('an HTTP %i link is gone for good', async (status) => {
    const error = await refusal(`${await cdn()}/gone/${status}`, loopback);
    expect(error).toMatchObject({ reason: 'gone', status });
  });

  it('never puts a query string (a signed token) into an error', async () => {
    const base = await cdn();
    const gone = await refusal(`${base}/gone/404?X-Signature=s3cr3t`, loopback);
    expect(gone.message).toBe(`download of ${base}/gone/404 answered HTTP 404: the file is gone`);
    const loop = await refusal(`${base}/hop/9?token=s3cr3t`, loopback);
    expect(JSON.stringify(loop)).not.toContain('s3cr3t');
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    const closed = downloadFile('http://127.0.0.1:1/a.png?token=s3cr3t', into(dir, 'a.png'), {
      cleanUp: false,
      policy: loopback,
    });
    await expect(closed).rejects.toMatchObject({ retryable: true });
    await expect(closed).rejects.not.toMatchObject({ message: expect.stringContaining('s3cr3t') });
  });
});

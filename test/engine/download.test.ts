import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { downloadFile } from '../../activities/download.ts';

const PICTURE = Buffer.from('not really a png, but 38 bytes of it!!');

/** `/whole` sends the picture; `/short` promises more bytes than it sends. */
async function cdn(): Promise<string> {
  const server = createServer((request, response) => {
    const short = request.url === '/short';
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
    const target = join(dir, 'still', 'a.png');
    const result = await downloadFile(`${await cdn()}/whole`, target, { cleanUp: false });
    expect(result).toEqual({
      sha256: createHash('sha256').update(PICTURE).digest('hex'),
      bytes: PICTURE.length,
    });
    expect(await readFile(target)).toEqual(PICTURE);
  });

  it('never leaves a truncated file in place, nor its temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    const target = join(dir, 'a.png');
    await expect(downloadFile(`${await cdn()}/short`, target, { cleanUp: false })).rejects.toMatchObject({
      type: 'download_error',
      retryable: true,
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('on a retry, removes what a killed attempt left beside its target, and only that', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-dl-'));
    await writeFile(join(dir, 'a.png.0a1b2c3d.part'), 'half a picture');
    await writeFile(join(dir, 'b.png.0a1b2c3d.part'), 'another job, still downloading');
    await downloadFile(`${await cdn()}/whole`, join(dir, 'a.png'), { cleanUp: true });
    expect((await readdir(dir)).sort()).toEqual(['a.png', 'b.png.0a1b2c3d.part']);
  });
});

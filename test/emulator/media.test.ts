import { convertIndexedToRgb, decode, encode } from 'fast-png';
import { createFile, MP4BoxBuffer } from 'mp4box';
import { describe, expect, it } from 'vitest';
import { createBody, type Json, settled, useEmulator } from './helpers.ts';

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The picture a viewer sees: RGB pixels, palette indices resolved (the emulator writes palette PNGs). */
function pixels(bytes: Buffer): Buffer {
  return Buffer.from(convertIndexedToRgb(decode(bytes)));
}

function mp4Info(bytes: Buffer): Promise<Json> {
  return new Promise((resolve, reject) => {
    const file = createFile();
    file.onReady = resolve;
    file.onError = (_module: string, message: string) => reject(new Error(message));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(buffer, 0));
    file.flush();
  });
}

describe('generated outputs', () => {
  const { call, emulator } = useEmulator();

  async function outputOf(path: string, input: Record<string, unknown>): Promise<Buffer> {
    const created = await call('POST', path, createBody(input));
    expect(created.status).toBe(200);
    const done = await settled(call, created.body.id);
    return download(done.output_data.urls[0]);
  }

  it.each([
    ['1:1', 512, 512],
    ['16:9', 512, 288],
    ['9:16', 288, 512],
    ['4:3', 512, 384],
    ['3:4', 384, 512],
    ['3:2', 512, 341],
    ['4:5', 410, 512],
    ['1:3', 171, 512],
  ])('decodes an I2 PNG at %s as %i×%i', async (aspect_ratio, width, height) => {
    const png = decode(await outputOf('/mf-i2/i2-base/predictions', { prompt: 'a kite', aspect_ratio }));
    expect([png.width, png.height]).toEqual([width, height]);
  });

  it('draws a picture that depends on the prompt', async () => {
    const a = pixels(await outputOf('/mf-i4/i4-base/predictions', { prompt: 'red barn' }));
    const b = pixels(await outputOf('/mf-i4/i4-base/predictions', { prompt: 'blue sea' }));
    const again = pixels(await outputOf('/mf-i4/i4-base/predictions', { prompt: 'red barn' }));
    expect(a.equals(b)).toBe(false);
    expect(a.equals(again)).toBe(true);
  });

  it.each([
    [
      '/mf-v1/v1-base/predictions',
      { prompt: 'x', duration: '10', resolution: '480p', aspect_ratio: '1:1' },
      10,
      480,
      480,
    ],
    ['/mf-v2/v2-base/predictions', { prompt: 'x' }, 8, 1280, 720],
    ['/mf-v3/v3-base/predictions', { prompt: 'x', seconds: '12', aspect_ratio: 'portrait' }, 12, 720, 1280],
    ['/mf-v5/v5-base/predictions', { prompt: 'x', duration: '10', resolution: '1080p' }, 10, 1920, 1080],
    ['/mf-v6/v6-base/predictions', { prompt: 'x' }, 6, 1280, 720],
  ])('parses the MP4 of %s with the asked duration', async (path, input, seconds, width, height) => {
    const info = await mp4Info(await outputOf(path, input));
    expect(info.duration / info.timescale).toBe(seconds);
    expect(info.videoTracks[0]).toMatchObject({ track_width: width, track_height: height });
  });

  it('serves an uploaded file whose URL works as an image input', async () => {
    const bytes = Buffer.from(encode({ width: 2, height: 2, data: new Uint8Array(2 * 2 * 4), channels: 4 }));
    const uploaded = await call('POST', '/files', {
      filename: 'ref.png',
      content_type: 'image/png',
      data: bytes.toString('base64'),
    });
    expect(uploaded.body).toMatchObject({ filename: 'ref.png', bytes: bytes.length });
    const served = await fetch(uploaded.body.url, {
      headers: { authorization: `Bearer ${emulator().apiKey}` },
    });
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    const video = await call(
      'POST',
      '/mf-v4/v4-base/predictions',
      createBody({ prompt: 'orbit', start_image: uploaded.body.url }),
    );
    expect(video.status).toBe(200);
    expect((await call('GET', `/files/${uploaded.body.id}`)).body.id).toBe(uploaded.body.id);
    expect((await call('GET', '/files')).body.data).toHaveLength(1);
    expect((await call('DELETE', `/files/${uploaded.body.id}`)).body).toEqual({
      id: uploaded.body.id,
      deleted: true,
    });
    expect((await call('GET', `/files/${uploaded.body.id}`)).status).toBe(404);
  });

  it('refuses a file that is not base64', async () => {
    const reply = await call('POST', '/files', {
      filename: 'a.png',
      content_type: 'image/png',
      data: 'not base64!',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.param).toBe('data');
  });
});

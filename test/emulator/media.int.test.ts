import { convertIndexedToRgb, decode, encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { mp4Info } from '../helpers/mp4-info.ts';
import { createBody, settled, useEmulator } from './helpers.ts';

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The picture a viewer sees: RGB pixels, palette indices resolved (the emulator writes palette PNGs). */
function pixels(bytes: Buffer): Buffer {
  return Buffer.from(convertIndexedToRgb(decode(bytes)));
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

  /** Mean red, green and blue of a picture. */
  function meanRgb(rgb: Buffer): [number, number, number] {
    const sum = [0, 0, 0];
    for (let i = 0; i < rgb.length; i++) sum[i % 3]! += rgb[i]!;
    return sum.map((total) => total / (rgb.length / 3)) as [number, number, number];
  }

  /** Share of pixels that differ between two pictures of the same size. */
  function differing(a: Buffer, b: Buffer): number {
    let count = 0;
    for (let i = 0; i < a.length; i += 3)
      if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) count++;
    return count / (a.length / 3);
  }

  /** Pixels of the words' colour (near white) in the bottom third, where the prompt is written. */
  function textPixels(png: Buffer): number {
    const { width, height } = decode(png);
    const rgb = pixels(png);
    let count = 0;
    for (let i = 3 * width * Math.floor((2 * height) / 3); i < rgb.length; i += 3) {
      if (rgb[i]! > 240 && rgb[i + 1]! > 240 && rgb[i + 2]! > 240) count++;
    }
    return count;
  }

  it('draws a different picture for each prediction, tinted by the colour its prompt names', async () => {
    const path = '/mf-i4/i4-base/predictions';
    const created = await call('POST', path, createBody({ prompt: 'red barn' }));
    const url = (await settled(call, created.body.id)).output_data.urls[0];
    const red = pixels(await download(url));
    const navy = pixels(await outputOf(path, { prompt: 'navy barn' }));
    // A retake is a new prediction of the same input: a different picture, as a new seed makes.
    const retake = pixels(await outputOf(path, { prompt: 'red barn' }));
    const [r, g, b] = meanRgb(red);
    expect(r - Math.max(g, b)).toBeGreaterThan(40);
    const [nr, ng, nb] = meanRgb(navy);
    expect(nb - Math.max(nr, ng)).toBeGreaterThan(25);
    expect(differing(red, retake)).toBeGreaterThan(0.05);
    // The same link is the same file every time.
    expect(pixels(await download(url)).equals(red)).toBe(true);
  });

  it('writes the prompt into the picture', async () => {
    const path = '/mf-i2/i2-base/predictions';
    const short = textPixels(await outputOf(path, { prompt: 'kite' }));
    const long = textPixels(await outputOf(path, { prompt: 'kite flying over a wide green valley at dawn' }));
    expect(short).toBeGreaterThan(50);
    expect(long).toBeGreaterThan(5 * short);
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
  ])(
    'parses the H.264 MP4 of %s with the asked duration and size',
    async (path, input, seconds, width, height) => {
      const info = await mp4Info(await outputOf(path, input));
      expect(info.duration / info.timescale).toBe(seconds);
      // Constrained Baseline, level 3.0, 8 frames a second; shown at the asked resolution.
      expect(info.videoTracks[0]).toMatchObject({
        codec: 'avc1.42c01e',
        nb_samples: 8 * seconds,
        track_width: width,
        track_height: height,
      });
    },
  );

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

  it("starts a video on an uploaded PNG or a PNG data URI, at the picture's size", async () => {
    const data = new Uint8Array(96 * 64 * 4).fill(200);
    const bytes = Buffer.from(encode({ width: 96, height: 64, data, channels: 4 }));
    const uploaded = await call('POST', '/files', {
      filename: 'start.png',
      content_type: 'image/png',
      data: bytes.toString('base64'),
    });
    const path = '/mf-v4/v4-base/predictions';
    const fromFile = await mp4Info(await outputOf(path, { prompt: 'pan', start_image: uploaded.body.url }));
    expect(fromFile.videoTracks[0].video).toEqual({ width: 96, height: 64 });
    const uri = `data:image/png;base64,${bytes.toString('base64')}`;
    const fromUri = await mp4Info(await outputOf(path, { prompt: 'pan', start_image: uri }));
    expect(fromUri.videoTracks[0].video).toEqual({ width: 96, height: 64 });
    // Text-to-video starts on a picture of its own prompt, 512 px wide at 16:9.
    const own = await mp4Info(await outputOf('/mf-v6/v6-base/predictions', { prompt: 'pan' }));
    expect(own.videoTracks[0].video).toEqual({ width: 512, height: 288 });
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

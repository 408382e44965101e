import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DeriveError } from '../../derive/derive-error.ts';
import { cropRegion, resized, sizeAfter } from '../../derive/geometry.ts';
import { deriveImage } from '../../derive/image/derive-image.ts';
import { imageToolVersion } from '../../derive/image/tool-version.ts';
import type { ImageFormat, ImageOperation } from '../../derive/operations.ts';
import { gradientPixels, gradientPng, HEIGHT, noisePng, pixelAt, rgbOf, WIDTH } from './stills.ts';

const SIZE = { width: WIDTH, height: HEIGHT };
const NO_XMP = { xmp: null };
const derive = async (operations: ImageOperation[]) => deriveImage(await gradientPng(), operations, NO_XMP);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable(),
    (error: unknown) => error,
  );

describe('crop', () => {
  const ratios: [number, number][] = [
    [1, 1],
    [4, 5],
    [16, 9],
    [9, 16],
    [21, 9],
  ];

  it.each(ratios)('%i:%i at a point cuts exactly the region geometry names', async (rw, rh) => {
    for (const focus of [
      { x: 0, y: 0 },
      { x: 0.5, y: 0.5 },
      { x: 1, y: 0.3 },
    ]) {
      const region = cropRegion(SIZE, [rw, rh], focus, 'pixel');
      const out = await derive([{ op: 'crop', aspectRatio: [rw, rh], focus }]);
      const expected = await sharp(gradientPixels(), { raw: { ...SIZE, channels: 3 } })
        .extract(region)
        .png()
        .toBuffer();
      expect({ width: out.width, height: out.height }).toEqual({
        width: region.width,
        height: region.height,
      });
      expect((await rgbOf(out.data)).pixels.equals((await rgbOf(expected)).pixels)).toBe(true);
    }
  });

  it.each(ratios)('%i:%i by attention and by entropy keeps the size cropRegion names', async (rw, rh) => {
    const { width, height } = cropRegion(SIZE, [rw, rh], { x: 0.5, y: 0.5 }, 'pixel');
    for (const focus of ['attention', 'entropy', 'centre'] as const) {
      const out = await derive([{ op: 'crop', aspectRatio: [rw, rh], focus }]);
      expect({ focus, width: out.width, height: out.height }).toEqual({ focus, width, height });
      expect((await sharp(out.data).metadata()).width).toBe(width);
    }
  });
});

describe('resize', () => {
  const sizes = [
    { width: 200, height: 200 },
    { width: 100, height: 300 },
    { width: 500, height: 101 },
    { width: 97, height: null },
    { width: null, height: 55 },
  ];

  it.each(['cover', 'contain', 'pad'] as const)(
    'with fit %s gives the sizes geometry predicts',
    async (fit) => {
      for (const size of sizes) {
        const op = { op: 'resize', ...size, fit, background: '#ff00ff' } as const;
        const out = await derive([op]);
        const metadata = await sharp(out.data).metadata();
        expect({ ...size, width: metadata.width, height: metadata.height }).toEqual({
          ...size,
          ...resized(SIZE, op, 'pixel'),
        });
      }
    },
  );

  it('pad letterboxes the whole picture on its background; contain and cover have no bands', async () => {
    const fits = ['pad', 'contain', 'cover'] as const;
    const [padded, contained, covered] = await Promise.all(
      fits.map(async (fit) =>
        rgbOf((await derive([{ op: 'resize', width: 200, height: 200, fit, background: '#ff00ff' }])).data),
      ),
    );
    expect(pixelAt(padded!, 0, 0)).toEqual([255, 0, 255]);
    expect(pixelAt(padded!, 199, 199)).toEqual([255, 0, 255]);
    expect(pixelAt(padded!, 100, 100)).not.toEqual([255, 0, 255]);
    expect([contained!.width, contained!.height]).toEqual([200, 113]);
    expect(pixelAt(covered!, 0, 0)).not.toEqual([255, 0, 255]);
  });
});

describe('pad, rotate and a chain of them', () => {
  it('pads to exactly the canvas size with the picture at its anchor', async () => {
    const source = await rgbOf(await gradientPng());
    const corner = await rgbOf(
      (
        await derive([
          { op: 'pad', width: 400, height: 300, position: 'bottom-right', background: '#0000ff' },
        ])
      ).data,
    );
    expect([corner.width, corner.height]).toEqual([400, 300]);
    expect(pixelAt(corner, 0, 0)).toEqual([0, 0, 255]);
    expect(pixelAt(corner, 399, 299)).toEqual(pixelAt(source, WIDTH - 1, HEIGHT - 1));
    expect(pixelAt(corner, 80, 120)).toEqual(pixelAt(source, 0, 0));

    const centred = await rgbOf(
      (await derive([{ op: 'pad', width: 400, height: 300, position: 'centre', background: '#0000ff' }]))
        .data,
    );
    expect(pixelAt(centred, 40, 60)).toEqual(pixelAt(source, 0, 0));
    expect(pixelAt(centred, 39, 60)).toEqual([0, 0, 255]);
  });

  it('rotates clockwise by whole pixels', async () => {
    const source = await rgbOf(await gradientPng());
    for (const degrees of [90, 180, 270] as const) {
      const out = await derive([{ op: 'rotate', degrees }]);
      const expected = degrees === 180 ? SIZE : { width: HEIGHT, height: WIDTH };
      expect({ width: out.width, height: out.height }).toEqual(expected);
    }
    const quarter = await rgbOf((await derive([{ op: 'rotate', degrees: 90 }])).data);
    expect(pixelAt(quarter, HEIGHT - 1, 0)).toEqual(pixelAt(source, 0, 0));
  });

  it('a chain of operations ends at the size sizeAfter walks to', async () => {
    const operations: ImageOperation[] = [
      { op: 'crop', aspectRatio: [4, 5], focus: 'attention' },
      { op: 'resize', width: 101, height: null, fit: 'cover', background: '#000000' },
      { op: 'pad', width: 150, height: 150, position: 'left', background: '#ffffff80' },
      { op: 'rotate', degrees: 270 },
    ];
    const walk = sizeAfter(SIZE, operations, 'pixel');
    const out = await derive(operations);
    expect(walk).toEqual({ ok: true, size: { width: out.width, height: out.height } });
    expect(await sharp(out.data).metadata()).toMatchObject({ width: out.width, height: out.height });
  });

  it('refuses a pad smaller than the picture, naming the operation', async () => {
    const error = await failure(
      derive([
        { op: 'rotate', degrees: 180 },
        { op: 'pad', width: 100, height: 100, position: 'centre', background: '#000000' },
      ]),
    );
    expect(error).toBeInstanceOf(DeriveError);
    expect(error).toMatchObject({ operation: { index: 1, name: 'pad' } });
    expect(String(error)).toContain('operation 2 (pad): cannot pad 320×180 to 100×100');
  });
});

const MAGIC: Readonly<Record<ImageFormat, (bytes: Buffer) => boolean>> = {
  jpeg: (bytes) => bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  png: (bytes) => bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')),
  webp: (bytes) => bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP',
  avif: (bytes) => bytes.toString('latin1', 4, 12) === 'ftypavif',
};

const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:source>mediaflow derive test</dc:source>' +
  '</rdf:Description></rdf:RDF></x:xmpmeta>';

describe('format', () => {
  it.each(['jpeg', 'png', 'webp', 'avif'] as const)(
    'writes a real %s with the XMP packet in it',
    async (type) => {
      const out = await deriveImage(
        await gradientPng(),
        [
          { op: 'resize', width: 160, height: null, fit: 'cover', background: '#000000' },
          { op: 'format', type, quality: null, maxBytes: null },
        ],
        { xmp: XMP },
      );
      expect(out.format).toBe(type);
      expect(MAGIC[type](out.data)).toBe(true);
      const metadata = await sharp(out.data).metadata();
      expect(metadata).toMatchObject({ width: 160, height: 90, format: type === 'avif' ? 'heif' : type });
      expect(metadata.xmpAsString).toContain('<dc:source>mediaflow derive test</dc:source>');
    },
  );

  it("keeps the input's own format when no operation names one", async () => {
    const png = await derive([{ op: 'rotate', degrees: 90 }]);
    expect([png.format, MAGIC.png(png.data)]).toEqual(['png', true]);
    const jpegInput = await sharp(await gradientPng())
      .jpeg()
      .toBuffer();
    const jpeg = await deriveImage(jpegInput, [{ op: 'rotate', degrees: 90 }], NO_XMP);
    expect([jpeg.format, MAGIC.jpeg(jpeg.data)]).toEqual(['jpeg', true]);
    expect((await sharp(jpeg.data).metadata()).xmp).toBeUndefined();
  });

  it('a png with a quality is quantised to a palette', async () => {
    const out = await derive([{ op: 'format', type: 'png', quality: 60, maxBytes: null }]);
    expect((await sharp(out.data).metadata()).isPalette).toBe(true);
  });

  it.each(['jpeg', 'webp', 'png'] as const)('%s: max_bytes is met by a smaller file', async (type) => {
    // Small: a png's palette costs a quantisation, slow on noise.
    const noise = await noisePng(160, 90);
    const full = await deriveImage(noise, [{ op: 'format', type, quality: null, maxBytes: null }], NO_XMP);
    const maxBytes = Math.floor(full.data.length * 0.7);
    const out = await deriveImage(noise, [{ op: 'format', type, quality: null, maxBytes }], NO_XMP);
    expect(out.data.length).toBeLessThanOrEqual(maxBytes);
    expect(MAGIC[type](out.data)).toBe(true);
    expect(await sharp(out.data).metadata()).toMatchObject({ width: 160, height: 90 });
  });

  it('refuses a max_bytes no quality down to 30 meets, saying the smallest size reached', async () => {
    const operations: ImageOperation[] = [
      { op: 'rotate', degrees: 180 },
      { op: 'format', type: 'jpeg', quality: 90, maxBytes: 2_000 },
    ];
    const error = await failure(deriveImage(await noisePng(), operations, NO_XMP));
    expect(error).toBeInstanceOf(DeriveError);
    expect(error).toMatchObject({ operation: { index: 1, name: 'format' } });
    expect(String(error)).toMatch(
      /^DeriveError: operation 2 \(format\): no jpeg of this 320×180 frame fits max_bytes 2000: the smallest reached is \d+ bytes \(quality 30, and 30 is the floor of jpeg\)/,
    );
  });

  it('refuses a png no palette brings under max_bytes, naming the smallest size reached', async () => {
    const noise = await noisePng(64, 64);
    const lossless = await deriveImage(noise, [], NO_XMP);
    const error = await failure(
      deriveImage(noise, [{ op: 'format', type: 'png', quality: null, maxBytes: 500 }], NO_XMP),
    );
    expect(error).toMatchObject({ operation: { index: 0, name: 'format' } });
    const smallest = Number(/the smallest reached is (\d+) bytes \(a/.exec(String(error))?.[1]);
    expect(smallest).toBeGreaterThan(500);
    expect(smallest).toBeLessThan(lossless.data.length * 0.5);
  });

  it("refuses a clip's format for a still", async () => {
    const error = await failure(derive([{ op: 'format', type: 'mp4', quality: null, maxBytes: null }]));
    expect(error).toMatchObject({ operation: { index: 0, name: 'format' } });
    expect(String(error)).toContain('mp4 is a clip');
  });
});

describe('the input and the tools', () => {
  it('an unreadable input is a DeriveError of the input, not of an operation', async () => {
    const error = await failure(deriveImage(Buffer.from('not an image at all'), [], NO_XMP));
    expect(error).toBeInstanceOf(DeriveError);
    expect(error).toMatchObject({ operation: null });
    expect(String(error)).toContain('the input is not an image sharp can read');
  });

  it("names sharp's and libvips' versions for the job key", () => {
    expect(imageToolVersion()).toBe(`sharp ${sharp.versions.sharp} libvips ${sharp.versions.vips}`);
    expect(sharp.versions.vips).toMatch(/^\d+\.\d+\.\d+/);
  });
});

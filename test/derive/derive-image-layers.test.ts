/** Text and overlays on a still: what a viewer sees change, where, and what is refused. */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeriveError } from '../../derive/derive-error.ts';
import { deriveImage } from '../../derive/image/derive-image.ts';
import { fontFaceOf } from '../../derive/image/font-face.ts';
import type { ImageOperation } from '../../derive/operations.ts';
import { assetOf, changedRegion, FONT, gradientPng, HEIGHT, pixelAt, rgbOf, WIDTH } from './stills.ts';

const NO_XMP = { xmp: null };
const derive = async (operations: ImageOperation[]) =>
  (await deriveImage(await gradientPng(), operations, NO_XMP)).data;
/** What an operation changed, against the same input written with no operation at all. */
const changedBy = async (op: ImageOperation) => changedRegion(await derive([]), await derive([op]));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable(),
    (error: unknown) => error,
  );

const text = (
  value: string,
  more: Partial<Extract<ImageOperation, { op: 'text' }>> = {},
): ImageOperation => ({
  op: 'text',
  value,
  position: 'bottom',
  size: 32,
  colour: '#ffffff',
  box: null,
  font: FONT,
  margin: 12,
  ...more,
});

describe('text', () => {
  it.each(['Été à Paris', '東京の夏'])(
    '"%s" is drawn inside its anchored region and nowhere else',
    async (value) => {
      const changed = await changedBy(text(value));
      expect(changed.count).toBeGreaterThan(300);
      // Centred at the bottom, within the margins, one line of a 32 px font.
      expect(changed.left).toBeGreaterThanOrEqual(12);
      expect(changed.left + changed.width).toBeLessThanOrEqual(WIDTH - 12);
      expect(changed.top + changed.height).toBeLessThanOrEqual(HEIGHT - 12);
      expect(changed.top).toBeGreaterThan(HEIGHT - 12 - 64);
      expect(Math.abs(changed.left + changed.width / 2 - WIDTH / 2)).toBeLessThan(16);
    },
  );

  it("draws Japanese with the font's own glyphs, each a full em wide (a missing glyph's box is narrower)", async () => {
    const changed = await changedBy(text('東京の夏', { size: 40 }));
    expect(changed.width).toBeGreaterThan(3.5 * 40);
    expect(changed.width).toBeLessThanOrEqual(4 * 40);
  });

  it('a box sits behind the text from exactly the margin, its colour blended by its alpha', async () => {
    const before = await rgbOf(await derive([]));
    const boxed = await derive([text('Été à Paris', { position: 'top-left', box: '#00000080', margin: 10 })]);
    const changed = await changedRegion(await derive([]), boxed);
    expect([changed.left, changed.top]).toEqual([10, 10]);
    const inside = pixelAt(await rgbOf(boxed), 11, 11);
    const under = pixelAt(before, 11, 11);
    for (const [channel, value] of inside.entries()) {
      expect(Math.abs(value - (under[channel] ?? 0) / 2)).toBeLessThanOrEqual(2);
    }
  });

  it('wraps a long headline and shrinks it until it fits the frame less its margins', async () => {
    const value = "Tom & Jerry <3> : l'été à Paris, où les terrasses débordent jusqu'à minuit chaque soir";
    const changed = await changedBy(text(value, { size: 90, position: 'centre', margin: 10 }));
    expect(changed.count).toBeGreaterThan(1_000);
    expect(changed.left).toBeGreaterThanOrEqual(10);
    expect(changed.top).toBeGreaterThanOrEqual(10);
    expect(changed.left + changed.width).toBeLessThanOrEqual(WIDTH - 10);
    expect(changed.top + changed.height).toBeLessThanOrEqual(HEIGHT - 10);
    // Several lines: taller than one line of even the shrunk text is wide.
    expect(changed.height).toBeGreaterThan(60);
  });

  it('reads the face a font file names for itself', () => {
    expect(fontFaceOf(readFileSync(FONT.path))).toEqual({
      family: 'Noto Sans JP',
      weight: 700,
      italic: false,
    });
    expect(fontFaceOf(Buffer.from('not a font, only words'))).toBeNull();
  });
});

describe('overlay and assets', () => {
  let folder = '';
  let logo = assetOf(FONT.path);
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'derive-image-'));
    const path = join(folder, 'logo.png');
    const red = { width: 100, height: 50, channels: 4, background: '#ff0000' } as const;
    writeFileSync(path, await sharp({ create: red }).png().toBuffer());
    logo = assetOf(path);
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  const overlay = (more: Partial<Extract<ImageOperation, { op: 'overlay' }>> = {}): ImageOperation => ({
    op: 'overlay',
    image: logo,
    position: 'top-right',
    width: 40,
    opacity: 1,
    margin: 8,
    ...more,
  });

  it('lays the logo at its width exactly at its anchor, inside the margin', async () => {
    const changed = await changedBy(overlay());
    expect(changed).toEqual({ left: WIDTH - 8 - 40, top: 8, width: 40, height: 20, count: 800 });
    expect(pixelAt(await rgbOf(await derive([overlay()])), WIDTH - 9, 8)).toEqual([255, 0, 0]);
  });

  it('blends the logo by its opacity', async () => {
    const under = pixelAt(await rgbOf(await derive([])), 10, HEIGHT - 10);
    const over = pixelAt(
      await rgbOf(await derive([overlay({ position: 'bottom-left', opacity: 0.5 })])),
      10,
      HEIGHT - 10,
    );
    expect(Math.abs((over[0] ?? 0) - ((under[0] ?? 0) + 255) / 2)).toBeLessThanOrEqual(2);
    expect(Math.abs((over[1] ?? 0) - (under[1] ?? 0) / 2)).toBeLessThanOrEqual(2);
  });

  it('refuses a logo wider than the frame less its margins', async () => {
    const error = await failure(derive([{ op: 'rotate', degrees: 180 }, overlay({ width: 310 })]));
    expect(error).toBeInstanceOf(DeriveError);
    expect(error).toMatchObject({ operation: { index: 1, name: 'overlay' } });
    expect(String(error)).toContain('at 310×155 with a margin of 8 does not fit the 320×180 frame');
  });

  it('refuses an asset that is gone, changed since the plan, or not what the operation reads', async () => {
    const gone = await failure(derive([overlay({ image: { ...logo, path: join(folder, 'gone.png') } })]));
    expect(String(gone)).toMatch(
      /^DeriveError: operation 1 \(overlay\): cannot read .*gone\.png \(ENOENT\)$/,
    );
    const changed = await failure(derive([overlay({ image: { ...logo, sha256: '0'.repeat(64) } })]));
    expect(String(changed)).toContain('has changed since the plan was made');
    const notAFont = await failure(derive([text('Été', { font: logo })]));
    expect(notAFont).toMatchObject({ operation: { index: 0, name: 'text' } });
    expect(String(notAFont)).toContain('is not a TrueType or OpenType font');
    const notAnImage = await failure(derive([overlay({ image: FONT })]));
    expect(String(notAnImage)).toContain('is not an image sharp can read');
  });

  it('refuses a logo rewritten, to the same size, after a derivative read it', async () => {
    const path = join(folder, 'rewritten.png');
    const blue = { width: 100, height: 50, channels: 4, background: '#0000ff' } as const;
    writeFileSync(path, await sharp({ create: blue }).png().toBuffer());
    const planned = assetOf(path);
    await derive([overlay({ image: planned })]);
    const again = Buffer.from(readFileSync(path));
    again[again.length - 1] = (again[again.length - 1] ?? 0) ^ 1;
    writeFileSync(path, again);
    const changed = await failure(derive([overlay({ image: planned })]));
    expect(String(changed)).toContain('has changed since the plan was made');
  });

  it('refuses a font rewritten after a derivative drew its text, however often that text was drawn', async () => {
    const path = join(folder, 'font.ttf');
    writeFileSync(path, readFileSync(FONT.path));
    const planned = assetOf(path);
    const headline = text('Été', { font: planned });
    expect(await derive([headline])).toEqual(await derive([headline]));
    const again = Buffer.from(readFileSync(path));
    again[again.length - 1] = (again[again.length - 1] ?? 0) ^ 1;
    writeFileSync(path, again);
    const changed = await failure(derive([headline]));
    expect(String(changed)).toContain('has changed since the plan was made');
  });
});

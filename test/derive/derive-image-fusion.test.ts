/**
 * Operations that share one sharp pipeline (derive/image/picture.ts) make what the same
 * operations make one at a time, each result written losslessly and read back as the next one's
 * input: the same size, and the same pixels but for rounding.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { deriveImage } from '../../derive/image/derive-image.ts';
import type { ImageOperation } from '../../derive/operations.ts';
import { FONT, gradientPixels, gradientPng, HEIGHT, WIDTH } from './stills.ts';

const NO_XMP = { xmp: null };
const PNG = { op: 'format', type: 'png', quality: null, maxBytes: null } as const;

const text = (value: string, position: 'top' | 'bottom'): ImageOperation => ({
  op: 'text',
  value,
  position,
  size: 24,
  colour: '#ffffff',
  box: '#00000088',
  font: FONT,
  margin: 8,
});

/** The operations in one call, and one call each. */
async function fusedAndOneAtATime(input: Buffer, operations: ImageOperation[]) {
  const fused = await deriveImage(input, [...operations, PNG], NO_XMP);
  let data = input;
  for (const op of operations) data = (await deriveImage(data, [op, PNG], NO_XMP)).data;
  return { fused: fused.data, apart: data };
}

/** The largest difference of any channel of any pixel, and the share of channels that differ at all. */
async function difference(a: Buffer, b: Buffer) {
  const read = (file: Buffer) => sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const [x, y] = await Promise.all([read(a), read(b)]);
  expect({ width: x.info.width, height: x.info.height }).toEqual({
    width: y.info.width,
    height: y.info.height,
  });
  let largest = 0;
  let differing = 0;
  for (let i = 0; i < x.data.length; i++) {
    const d = Math.abs((x.data[i] ?? 0) - (y.data[i] ?? 0));
    largest = Math.max(largest, d);
    if (d > 0) differing++;
  }
  return { largest, share: differing / x.data.length };
}

describe('operations sharing a pipeline', () => {
  it.each<[string, ImageOperation[]]>([
    [
      'a resize and a text over it',
      [
        { op: 'resize', width: 400, height: 400, fit: 'cover', background: '#000000' },
        text('Soft, breathable', 'bottom'),
      ],
    ],
    [
      'a crop at a point, two texts',
      [
        { op: 'crop', aspectRatio: [1, 1], focus: { x: 0.2, y: 0.5 } },
        text('Top', 'top'),
        text('Bottom', 'bottom'),
      ],
    ],
    [
      'a crop by attention, a resize, a text',
      [
        { op: 'crop', aspectRatio: [4, 5], focus: 'attention' },
        { op: 'resize', width: 100, height: null, fit: 'cover', background: '#000000' },
        text('Hi', 'bottom'),
      ],
    ],
    [
      'a text, then a resize (settled between)',
      [
        text('Before', 'bottom'),
        { op: 'resize', width: 200, height: 100, fit: 'contain', background: '#000000' },
      ],
    ],
    [
      'a clear letterbox, then a text',
      [{ op: 'resize', width: 400, height: 400, fit: 'pad', background: '#00000000' }, text('Clear', 'top')],
    ],
    [
      'a rotate, a pad, a text',
      [
        { op: 'rotate', degrees: 90 },
        { op: 'pad', width: 300, height: 400, position: 'top', background: '#ff000080' },
        text('Pad', 'bottom'),
      ],
    ],
  ])('%s make what they make one at a time', async (_, operations) => {
    const { fused, apart } = await fusedAndOneAtATime(await gradientPng(), operations);
    const { largest, share } = await difference(fused, apart);
    expect(largest).toBeLessThanOrEqual(2);
    expect(share).toBeLessThan(0.01);
  });

  it("crops an input with an EXIF orientation where a viewer shows it, in the input's own pipeline", async () => {
    // Stored sideways (180 wide, 320 high), tagged "turn a quarter clockwise to view" (6)... read back as upright 320×180.
    const sideways = await sharp(gradientPixels(), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .rotate(270)
      .withMetadata({ orientation: 6 })
      .png()
      .toBuffer();
    const crop: ImageOperation = { op: 'crop', aspectRatio: [1, 1], focus: { x: 0, y: 0 } };
    const { fused, apart } = await fusedAndOneAtATime(sideways, [crop]);
    const upright = (await deriveImage(sideways, [PNG], NO_XMP)).data;
    const expected = await deriveImage(upright, [crop, PNG], NO_XMP);
    expect((await difference(fused, expected.data)).largest).toBe(0);
    expect((await difference(fused, apart)).largest).toBe(0);
    expect((await sharp(fused).metadata()).width).toBe(HEIGHT);
  });
});

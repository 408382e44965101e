/**
 * Writes the last picture as a file, the XMP packet in it: the end of its pipeline (picture.ts). With `max_bytes` a file that is too large
 * is written again, smaller, until one fits: a lossy type at lower qualities, by bisection (a file
 * shrinks as its quality does) down to a floor, keeping the highest quality that fits; a png by a
 * short ladder, lossless then two palettes, because each palette costs a quantisation (a second or
 * so for a large frame) and what shrinks a png is fewer colours and less dithering, not a search.
 * When nothing fits the derivative is refused with the smallest size reached, rather than mush.
 */
import type { AvifOptions, JpegOptions, PngOptions, WebpOptions } from 'sharp';
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { ImageFormat } from '../operations.ts';
import { framePicture, type Picture, run, settled } from './picture.ts';

export interface Encoding {
  /** The format operation this comes from, or null when the input's own format is kept. */
  readonly at: OperationAt | null;
  readonly type: ImageFormat;
  /** 1–100; null: sharp's default for a lossy type, lossless for png. */
  readonly quality: number | null;
  readonly maxBytes: number | null;
}

/** The lowest quality a `max_bytes` search takes a lossy file down to. */
export const QUALITY_FLOOR = 30;

type Lossy = Exclude<ImageFormat, 'png'>;

/** sharp's own defaults, named because a `max_bytes` search starts from them. */
const DEFAULT_QUALITY: Readonly<Record<Lossy, number>> = { jpeg: 80, webp: 80, avif: 50 };

/** A way of writing the file, and its name in a refusal's message. */
interface Setting {
  readonly name: string;
  readonly options: JpegOptions | WebpOptions | AvifOptions | PngOptions;
}

const LOSSLESS: Setting = { name: 'lossless', options: { compressionLevel: 9 } };
const PALETTE: Setting = { name: 'a 256-colour palette', options: { palette: true } };
/** As few colours as the floor's quality allows, undithered: dithering's scattered pixels are what zlib compresses worst. */
const FLOOR_PALETTE: Setting = {
  name: `a palette at quality ${QUALITY_FLOOR}, undithered`,
  options: { palette: true, quality: QUALITY_FLOOR, dither: 0 },
};

export async function encode(picture: Picture, encoding: Encoding, xmp: string | null): Promise<Buffer> {
  const { type, quality, maxBytes } = encoding;
  // A search writes the file several times: its pixels are made once, not once a try.
  const frame = maxBytes === null ? picture : framePicture(await settled(picture), picture.at);
  const write = async (setting: Setting) => {
    const { data } = await run(frame, (image) => {
      if (xmp !== null) image.withXmp(xmp);
      return image.toFormat(type, setting.options).toBuffer({ resolveWithObject: true });
    });
    return data;
  };
  const fits = (data: Buffer) => maxBytes === null || data.length <= maxBytes;
  const tried =
    type === 'png'
      ? await firstFitting(pngLadder(quality), write, fits)
      : await highestFitting(type, quality ?? DEFAULT_QUALITY[type], write, fits);
  if ('data' in tried) return tried.data;
  throw new DeriveError(
    encoding.at,
    `no ${type} of this ${frame.width}×${frame.height} frame fits max_bytes ${maxBytes}: the smallest reached is ${tried.smallest.bytes} bytes (${tried.smallest.name}); make it smaller or allow more bytes`,
  );
}

type Tried =
  | { readonly data: Buffer }
  | { readonly smallest: { readonly bytes: number; readonly name: string } };
type Write = (setting: Setting) => Promise<Buffer>;

/** A png's rungs; a quality given is the first palette's (libimagequant uses no more colours than it needs). */
function pngLadder(quality: number | null): readonly Setting[] {
  if (quality === null) return [LOSSLESS, PALETTE, FLOOR_PALETTE];
  const first = { name: `a palette at quality ${quality}`, options: { palette: true, quality } };
  return quality <= QUALITY_FLOOR ? [first] : [first, FLOOR_PALETTE];
}

async function firstFitting(
  ladder: readonly Setting[],
  write: Write,
  fits: (data: Buffer) => boolean,
): Promise<Tried> {
  let smallest = { bytes: Number.POSITIVE_INFINITY, name: '' };
  for (const setting of ladder) {
    const data = await write(setting);
    if (fits(data)) return { data };
    if (data.length < smallest.bytes) smallest = { bytes: data.length, name: setting.name };
  }
  return { smallest };
}

async function highestFitting(
  type: Lossy,
  top: number,
  write: Write,
  fits: (data: Buffer) => boolean,
): Promise<Tried> {
  const at = (quality: number) => ({ name: `quality ${quality}`, options: { quality } });
  const first = await write(at(top));
  if (fits(first)) return { data: first };
  let smallest = { bytes: first.length, name: at(top).name };
  let fitting: Buffer | null = null;
  let [low, high] = [QUALITY_FLOOR, top - 1];
  while (low <= high) {
    const quality = Math.floor((low + high) / 2);
    const data = await write(at(quality));
    if (fits(data)) {
      fitting = data;
      low = quality + 1;
    } else {
      high = quality - 1;
      if (data.length < smallest.bytes) smallest = { bytes: data.length, name: at(quality).name };
    }
  }
  if (fitting !== null) return { data: fitting };
  return {
    smallest: { ...smallest, name: `${smallest.name}, and ${QUALITY_FLOOR} is the floor of ${type}` },
  };
}

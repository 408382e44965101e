/**
 * The picture an image-to-video prediction starts from, as RGB: its first frame. The input
 * image is found where a client puts it (service-spec.md part 4.2: a URL or a data URI):
 * - a link to one of this emulator's outputs (`/cdn/outputs/<id>.png`, how a chained step
 *   sends its parent's still): that prediction's picture, drawn again, exactly as served;
 * - an uploaded file (`/cdn/files/<id>/<name>`), a `data:image/png;base64,` URI or raw base64
 *   of a PNG: decoded with fast-png, scaled down to the emulator's 512-pixel long side;
 * - anything else (a JPEG, a link elsewhere: the emulator fetches nothing): undefined, and the
 *   video starts from a picture of its own prompt.
 */
import { decode } from 'fast-png';
import type { Picture } from './picture.ts';

export interface RgbImage {
  readonly width: number;
  readonly height: number;
  /** Three bytes a pixel, row by row. */
  readonly rgb: Uint8Array;
}

export interface StillSources {
  /** The picture of one of this emulator's image outputs, by prediction id. */
  picture(predictionId: number): Picture | undefined;
  /** An uploaded file's bytes, by file id. */
  file(fileId: string): Buffer | undefined;
}

const LONG_SIDE = 512;

export function findStill(value: unknown, sources: StillSources): RgbImage | undefined {
  if (typeof value !== 'string') return undefined;
  const output = /\/cdn\/outputs\/(\d{1,15})\.png(?:[?#].*)?$/.exec(value);
  if (output) {
    const picture = sources.picture(Number(output[1]));
    return picture && pictureToRgb(picture);
  }
  const file = /\/cdn\/files\/([^/?#]+)\//.exec(value);
  if (file) return decodePng(sources.file(decodeURIComponent(file[1]!)));
  const data =
    /^data:image\/png;base64,(.*)$/s.exec(value)?.[1] ??
    (/^[A-Za-z0-9+/=\s]+$/.test(value) ? value : undefined);
  return data === undefined ? undefined : decodePng(Buffer.from(data, 'base64'));
}

export function pictureToRgb(picture: Picture): RgbImage {
  const { pixels } = picture;
  const palette = picture.palette.flat();
  const rgb = new Uint8Array(pixels.length * 3);
  for (let i = 0, o = 0; i < pixels.length; i++, o += 3) {
    const c = 3 * pixels[i]!;
    rgb[o] = palette[c]!;
    rgb[o + 1] = palette[c + 1]!;
    rgb[o + 2] = palette[c + 2]!;
  }
  return { width: picture.width, height: picture.height, rgb };
}

/** The centre of `still` at `ratio` ("W:H"); as it is when it already has that shape. */
export function cropToRatio(still: RgbImage, ratio: string): RgbImage {
  const [w, h] = ratio.split(':').map(Number) as [number, number];
  const width = Math.max(2, Math.min(still.width, Math.round((still.height * w) / h)));
  const height = Math.max(2, Math.min(still.height, Math.round((still.width * h) / w)));
  if (width === still.width && height === still.height) return still;
  const left = Math.floor((still.width - width) / 2);
  const top = Math.floor((still.height - height) / 2);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = 3 * ((top + y) * still.width + left);
    rgb.set(still.rgb.subarray(from, from + 3 * width), 3 * y * width);
  }
  return { width, height, rgb };
}

/** Any PNG fast-png reads (palette, grey, alpha over black, 16-bit), nearest-neighbour scaled. */
function decodePng(bytes: Buffer | undefined): RgbImage | undefined {
  if (!bytes) return undefined;
  let png: ReturnType<typeof decode>;
  try {
    png = decode(bytes);
  } catch {
    return undefined;
  }
  const scale = Math.min(1, LONG_SIDE / Math.max(png.width, png.height));
  const width = Math.max(2, Math.round(png.width * scale));
  const height = Math.max(2, Math.round(png.height * scale));
  const rgb = new Uint8Array(width * height * 3);
  const shift = png.depth === 16 ? 8 : 0;
  const max = png.palette ? 1 : png.depth < 8 ? (1 << png.depth) - 1 : 1;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(png.height - 1, Math.floor(y / scale));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(png.width - 1, Math.floor(x / scale));
      rgb.set(pixelAt(png, sx, sy, shift, max), 3 * (y * width + x));
    }
  }
  return { width, height, rgb };
}

function pixelAt(png: ReturnType<typeof decode>, x: number, y: number, shift: number, max: number): number[] {
  const { channels, depth, data, palette } = png;
  const sample = (c: number) => {
    if (depth >= 8) return (data[(y * png.width + x) * channels + c]! >> shift) & 0xff;
    const rowBytes = Math.ceil((png.width * depth * channels) / 8);
    const bit = (x * channels + c) * depth;
    return (data[y * rowBytes + (bit >> 3)]! >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
  };
  if (palette) return [...(palette[sample(0)] ?? [0, 0, 0])].slice(0, 3);
  const grey = channels <= 2;
  const alpha = channels === 2 || channels === 4 ? sample(channels - 1) / (depth < 8 ? max : 255) : 1;
  const colour = grey ? [sample(0), sample(0), sample(0)] : [sample(0), sample(1), sample(2)];
  return colour.map((v) => Math.round((depth < 8 ? (v * 255) / max : v) * alpha));
}

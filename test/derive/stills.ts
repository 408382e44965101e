/**
 * Stills for the derive tests, made with sharp itself: a gradient (every pixel different, so a
 * crop or a placement off by one shows), noise (which no encoder compresses well, for `max_bytes`)
 * and the project's font as an Asset.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import type { Region } from '../../derive/geometry.ts';
import type { Asset } from '../../derive/operations.ts';

export const WIDTH = 320;
export const HEIGHT = 180;

function rgb(width: number, height: number, colour: (x: number, y: number) => readonly number[]): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels.set(colour(x, y), (y * width + x) * 3);
  }
  return pixels;
}

export function gradientPixels(width = WIDTH, height = HEIGHT): Buffer {
  return rgb(width, height, (x, y) => [
    Math.round((x * 255) / (width - 1)),
    Math.round((y * 255) / (height - 1)),
    128,
  ]);
}

export function gradientPng(width = WIDTH, height = HEIGHT): Promise<Buffer> {
  return sharp(gradientPixels(width, height), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Noise from a fixed seed, so a file's size is the same on every run. */
export function noisePng(width = WIDTH, height = HEIGHT): Promise<Buffer> {
  let seed = 42;
  const next = () => {
    // Exact 32-bit arithmetic (a plain product would overflow a double's 53 bits and cycle early);
    // the top byte, as an LCG's low bits repeat within a few steps.
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed >>> 24;
  };
  return sharp(
    rgb(width, height, () => [next(), next(), next()]),
    { raw: { width, height, channels: 3 } },
  )
    .png()
    .toBuffer();
}

/** A file's pixels as 8-bit RGB (alpha dropped), row by row. */
export async function rgbOf(file: Buffer): Promise<{ pixels: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(file).removeAlpha().toColourspace('srgb').raw().toBuffer({
    resolveWithObject: true,
  });
  return { pixels: data, width: info.width, height: info.height };
}

export function pixelAt(image: { pixels: Buffer; width: number }, x: number, y: number): number[] {
  const at = (y * image.width + x) * 3;
  return [...image.pixels.subarray(at, at + 3)];
}

/** The bounding box of the pixels that differ between two same-sized files, and how many do. */
export async function changedRegion(before: Buffer, after: Buffer): Promise<Region & { count: number }> {
  const [a, b] = await Promise.all([rgbOf(before), rgbOf(after)]);
  let [left, top, right, bottom, count] = [a.width, a.height, -1, -1, 0];
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const p = pixelAt(a, x, y);
      const q = pixelAt(b, x, y);
      if (p.every((value, channel) => Math.abs(value - (q[channel] ?? 0)) <= 8)) continue;
      count++;
      [left, top, right, bottom] = [
        Math.min(left, x),
        Math.min(top, y),
        Math.max(right, x),
        Math.max(bottom, y),
      ];
    }
  }
  return { left, top, width: right - left + 1, height: bottom - top + 1, count };
}

export function assetOf(path: string): Asset {
  return { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
}

export const FONT = assetOf(
  createRequire(import.meta.url).resolve('@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf'),
);

/**
 * The PNG of a picture (picture.ts): a 4-bit palette image, two pixels a byte. Speed matters:
 * every emulated image prediction is rendered on download, benchmarks make tens of thousands,
 * and a wave finishing together is downloaded together: a slower encoder queues the last download
 * of a wave behind all the others.
 *
 * The four chunks are written here rather than by fast-png's `encode` (fast-png still decodes
 * uploads and is the tests' reader): its byte-at-a-time buffer and JavaScript deflate cost many
 * times Node's native zlib (scripts/media-timing.ts; docs/benchmarks.md, "Measurements behind the
 * code").
 */
import { crc32, deflateSync } from 'node:zlib';
import type { Size } from './dimensions.ts';
import { renderPicture } from './picture.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const INDEXED = 3;

export function renderPng(prompt: string, seed: number, size: Size): Buffer {
  const { width, height, pixels, palette } = renderPicture(prompt, seed, size);
  const rowBytes = 1 + Math.ceil(width / 2); // a filter byte (0: none), then the indices
  const raw = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const from = y * width;
    const to = y * rowBytes + 1;
    for (let x = 0; x < width; x += 2) {
      raw[to + (x >> 1)] = (pixels[from + x]! << 4) | (x + 1 < width ? pixels[from + x + 1]! : 0);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([4, INDEXED, 0, 0, 0], 8); // bit depth, colour type, compression, filter, interlace
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('PLTE', Buffer.from(palette.flat())),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

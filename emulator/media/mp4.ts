/**
 * A minimal but valid MP4 (ISO BMFF), written by hand: ftyp, moov with one video track
 * (avc1 sample entry, one sample per second) and an mdat. No encoder is involved, the samples
 * are placeholder bytes; what matters is that standard parsers (mp4box) read the container,
 * the track size and the asked duration.
 */
import { createHash } from 'node:crypto';
import type { Size } from './dimensions.ts';

const TIMESCALE = 1000;
const SAMPLE_BYTES = 64;
/** Identity transform matrix of mvhd/tkhd. */
const MATRIX = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function fullBox(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
  return box(type, u32((version << 24) | flags), ...parts);
}

function u32(...values: number[]): Buffer {
  const buffer = Buffer.alloc(4 * values.length);
  for (const [i, value] of values.entries()) buffer.writeUInt32BE(value >>> 0, 4 * i);
  return buffer;
}

function u16(...values: number[]): Buffer {
  const buffer = Buffer.alloc(2 * values.length);
  for (const [i, value] of values.entries()) buffer.writeUInt16BE(value & 0xffff, 2 * i);
  return buffer;
}

function bytes(...values: number[]): Buffer {
  return Buffer.from(values);
}

function sampleEntry(size: Size): Buffer {
  const avcC = box('avcC', bytes(1, 66, 0, 30, 0xff, 0xe0, 0));
  return box(
    'avc1',
    Buffer.alloc(6),
    u16(1), // data_reference_index
    Buffer.alloc(16), // pre_defined + reserved
    u16(size.width, size.height),
    u32(0x00480000, 0x00480000, 0), // 72 dpi, reserved
    u16(1), // frame_count
    Buffer.alloc(32), // compressorname
    u16(0x0018, 0xffff), // depth, pre_defined = -1
    avcC,
  );
}

function moov(size: Size, seconds: number, dataOffset: number): Buffer {
  const duration = seconds * TIMESCALE;
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32(0, 0, TIMESCALE, duration, 0x00010000),
    u16(0x0100, 0),
    Buffer.alloc(8),
    u32(...MATRIX),
    Buffer.alloc(24),
    u32(2), // next_track_ID
  );
  const tkhd = fullBox(
    'tkhd',
    0,
    3, // enabled, in movie
    u32(0, 0, 1, 0, duration),
    Buffer.alloc(8),
    u16(0, 0, 0, 0), // layer, alternate_group, volume, reserved
    u32(...MATRIX),
    u32(size.width << 16, size.height << 16),
  );
  const mdhd = fullBox('mdhd', 0, 0, u32(0, 0, TIMESCALE, duration), u16(0x55c4, 0));
  const hdlr = fullBox('hdlr', 0, 0, u32(0), Buffer.from('vide'), Buffer.alloc(12), Buffer.from('Video\0'));
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), sampleEntry(size)),
    fullBox('stts', 0, 0, u32(1, seconds, TIMESCALE)),
    fullBox('stsc', 0, 0, u32(1, 1, seconds, 1)),
    fullBox('stsz', 0, 0, u32(SAMPLE_BYTES, seconds)),
    fullBox('stco', 0, 0, u32(1, dataOffset)),
  );
  const minf = box(
    'minf',
    fullBox('vmhd', 0, 1, Buffer.alloc(8)),
    box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
    stbl,
  );
  return box('moov', mvhd, box('trak', tkhd, box('mdia', mdhd, hdlr, minf)));
}

export function renderMp4(prompt: string, size: Size, seconds: number): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom'), u32(0x200), Buffer.from('isomiso2avc1mp41'));
  const sample = createHash('sha512').update(prompt).digest().subarray(0, SAMPLE_BYTES);
  const mdat = box('mdat', ...Array.from({ length: seconds }, () => sample));
  // moov's size does not depend on the offset value, so measure once and write it for real.
  const moovSize = moov(size, seconds, 0).length;
  return Buffer.concat([ftyp, moov(size, seconds, ftyp.length + moovSize + 8), mdat]);
}

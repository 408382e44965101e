/**
 * An MP4 (ISO BMFF) around an H.264 stream (h264.ts), written by hand: ftyp, moov with one
 * video track, mdat. A muxing library would be a runtime dependency for ~100 lines of boxes
 * (mp4box stays a devDependency: the tests parse these files with it). All samples sit in one
 * chunk; only the first frame is a sync sample.
 */
import type { Size } from './dimensions.ts';
import type { H264Stream } from './h264.ts';

/** Milliseconds: frame durations (1000 / FPS) and the asked seconds are whole numbers. */
const TIMESCALE = 1000;
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

/** avcC: the decoder configuration, SPS and PPS; NAL units in samples carry 4-byte lengths. */
function avcC(stream: H264Stream): Buffer {
  const { sps, pps } = stream;
  return box(
    'avcC',
    Buffer.from([1, sps[1]!, sps[2]!, sps[3]!, 0xff, 0xe1]),
    u16(sps.length),
    sps,
    Buffer.from([1]),
    u16(pps.length),
    pps,
  );
}

function sampleEntry(stream: H264Stream, coded: Size): Buffer {
  return box(
    'avc1',
    Buffer.alloc(6),
    u16(1), // data_reference_index
    Buffer.alloc(16), // pre_defined + reserved
    u16(coded.width, coded.height),
    u32(0x00480000, 0x00480000, 0), // 72 dpi, reserved
    u16(1), // frame_count
    Buffer.alloc(32), // compressorname
    u16(0x0018, 0xffff), // depth, pre_defined = -1
    avcC(stream),
  );
}

interface Track {
  readonly stream: H264Stream;
  /** The picture's size in the stream. */
  readonly coded: Size;
  /** The size to show it at (tkhd): the asked resolution. */
  readonly display: Size;
  readonly frameMs: number;
  readonly sizes: number[];
}

function moov(track: Track, dataOffset: number): Buffer {
  const count = track.sizes.length;
  const duration = count * track.frameMs;
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32(0, 0, TIMESCALE, duration, 0x00010000),
    u16(0x0100, 0),
    Buffer.alloc(8),
    u32(...MATRIX),
    Buffer.alloc(24),
    u32(2),
  );
  const tkhd = fullBox(
    'tkhd',
    0,
    3, // enabled, in movie
    u32(0, 0, 1, 0, duration),
    Buffer.alloc(8),
    u16(0, 0, 0, 0), // layer, alternate_group, volume, reserved
    u32(...MATRIX),
    u32(track.display.width << 16, track.display.height << 16),
  );
  const mdhd = fullBox('mdhd', 0, 0, u32(0, 0, TIMESCALE, duration), u16(0x55c4, 0));
  const hdlr = fullBox('hdlr', 0, 0, u32(0), Buffer.from('vide'), Buffer.alloc(12), Buffer.from('Video\0'));
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), sampleEntry(track.stream, track.coded)),
    fullBox('stts', 0, 0, u32(1, count, track.frameMs)),
    fullBox('stss', 0, 0, u32(1, 1)),
    fullBox('stsc', 0, 0, u32(1, 1, count, 1)),
    fullBox('stsz', 0, 0, u32(0, count, ...track.sizes)),
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

/** The MP4 of `stream`: frames `frameMs` apart, shown at `display` size. */
export function muxMp4(stream: H264Stream, coded: Size, display: Size, frameMs: number): Buffer {
  const samples = stream.frames.map((nal) => Buffer.concat([u32(nal.length), nal]));
  const track: Track = { stream, coded, display, frameMs, sizes: samples.map((s) => s.length) };
  const ftyp = box('ftyp', Buffer.from('isom'), u32(0x200), Buffer.from('isomiso2avc1mp41'));
  const mdat = box('mdat', ...samples);
  // moov's size does not depend on the offset value, so measure once and write it for real.
  const moovSize = moov(track, 0).length;
  return Buffer.concat([ftyp, moov(track, ftyp.length + moovSize + 8), mdat]);
}

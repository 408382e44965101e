/**
 * XMP into a PNG without re-encoding it: an `iTXt` chunk with the keyword XMP's specification
 * gives PNGs (`XML:com.adobe.xmp`) is inserted right after IHDR, and every other byte passes
 * through as it came, so the pixels (IDAT) are the service's own. Streamed: only the chunks before
 * the first IDAT (a few hundred bytes) are held, to decide, never the image.
 *
 * The file is passed through untouched, and the XMP goes to a sidecar instead, when:
 * - it is not a PNG (a link that said .png and was not);
 * - it carries a C2PA manifest (a `caBX` chunk, placed before IDAT by the C2PA specification) and
 *   mediaflow does not sign it: the manifest's hard binding hashes the file's bytes, so inserting
 *   anything would break it; the manifest is kept byte for byte (docs/service-assumptions.md).
 *   A file mediaflow signs is embedded into all the same: its signature covers the XMP, and the
 *   service's manifest is kept whole as its parent ingredient (credentials/sign-here.ts);
 * - it has XMP already (a PNG may hold one XMP packet) or its header is oddly long.
 */
import { crc32 } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const XMP_KEYWORD = 'XML:com.adobe.xmp';
/** Chunks before IDAT are metadata; a header larger than this is passed through, not parsed further. */
const MAX_HEADER = 1 << 20;

export type Placement = 'embedded' | 'sidecar';

/** The `iTXt` chunk holding `xmp`: uncompressed, no language tag, no translated keyword. */
export function xmpChunk(xmp: string): Buffer {
  const data = Buffer.concat([
    Buffer.from(XMP_KEYWORD, 'latin1'),
    Buffer.from([0, 0, 0, 0, 0]), // keyword end, compression flag, method, empty language, empty translation
    Buffer.from(xmp, 'utf8'),
  ]);
  return chunk('iTXt', data);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** Where the XMP chunk goes, or why none does, judged on the bytes before the first IDAT. */
function judge(header: Buffer, resigned: boolean): { at: number } | { refuse: true } | { more: true } {
  if (header.length < SIGNATURE.length) return { more: true };
  if (!header.subarray(0, SIGNATURE.length).equals(SIGNATURE)) return { refuse: true };
  let offset = SIGNATURE.length;
  let afterIhdr = -1;
  while (offset + 8 <= header.length) {
    const length = header.readUInt32BE(offset);
    const type = header.toString('latin1', offset + 4, offset + 8);
    if (type === 'IDAT' || type === 'IEND') return afterIhdr > 0 ? { at: afterIhdr } : { refuse: true };
    const end = offset + 12 + length;
    if (end > header.length) break;
    if (type === 'IHDR') afterIhdr = end;
    if (type === 'caBX' && !resigned) return { refuse: true };
    if (
      type === 'iTXt' &&
      header.toString('latin1', offset + 8, offset + 8 + XMP_KEYWORD.length + 1) === `${XMP_KEYWORD}\0`
    )
      return { refuse: true };
    offset = end;
  }
  return header.length > MAX_HEADER ? { refuse: true } : { more: true };
}

/**
 * The bytes of `body` with `xmp` embedded; `placement()`, once the stream is read, says whether it
 * was (else the caller writes a sidecar). `resigned`: the result is signed next, so a C2PA manifest
 * the file carries does not keep the XMP out.
 */
export function embedXmpInPng(
  body: AsyncIterable<Buffer>,
  xmp: string,
  resigned = false,
): { body: AsyncIterable<Buffer>; placement(): Placement } {
  let placement: Placement = 'sidecar';
  async function* embedded(): AsyncGenerator<Buffer> {
    let header: Buffer = Buffer.alloc(0);
    let decided = false;
    for await (const piece of body) {
      if (decided) {
        yield piece;
        continue;
      }
      header = Buffer.concat([header, piece]);
      const verdict = judge(header, resigned);
      if ('more' in verdict) continue;
      decided = true;
      if ('at' in verdict) {
        placement = 'embedded';
        yield header.subarray(0, verdict.at);
        yield xmpChunk(xmp);
        yield header.subarray(verdict.at);
      } else yield header;
    }
    // A body too short to judge (an empty or truncated file) is passed on as it came.
    if (!decided && header.length > 0) yield header;
  }
  return { body: embedded(), placement: () => placement };
}

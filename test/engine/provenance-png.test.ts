/**
 * XMP into PNGs without re-encoding (activities/provenance/png.ts), on bytes alone: the chunk lands
 * after IHDR however the download is cut into pieces, decoders still read the same pixels, a C2PA
 * manifest (caBX) keeps the file byte for byte, and a prompt cannot break out of its element.
 */
import { crc32 } from 'node:zlib';
import { decode, encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { embedXmpInPng } from '../../activities/provenance/png.ts';
import { withProvenance } from '../../activities/provenance/with-provenance.ts';
import { type Provenance, xmpPacket } from '../../activities/provenance/xmp.ts';

const PICTURE = Buffer.from(
  encode({ width: 4, height: 2, channels: 3, data: new Uint8Array(24).map((_, i) => i * 10) }),
);

async function collect(pieces: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const piece of pieces) out.push(piece);
  return Buffer.concat(out);
}

async function* inPieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function chunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let offset = 8; offset < png.length; offset += 12 + png.readUInt32BE(offset)) {
    types.push(png.toString('latin1', offset + 4, offset + 8));
    const end = offset + 8 + png.readUInt32BE(offset);
    expect(png.readUInt32BE(end)).toBe(crc32(png.subarray(offset + 4, end))); // every CRC holds
  }
  return types;
}

const provenance: Provenance = {
  model: 'I1',
  prompt: 'a </mediaflow:Campaign><evil/> & "quoted" \u0007bell',
  campaign: 'c',
  planDigest: '0'.repeat(32),
  jobKey: '1'.repeat(32),
  predictionId: 'p1',
  parentFile: null,
  review: null,
  createdAt: '2026-11-27T06:00:00Z',
};

describe('XMP in a PNG', () => {
  it.each([1, 7, 33, 4096])(
    'inserts one iTXt chunk after IHDR with the body in %i-byte pieces',
    async (size) => {
      const embedded = embedXmpInPng(inPieces(PICTURE, size), xmpPacket(provenance));
      const out = await collect(embedded.body);
      expect(embedded.placement()).toBe('embedded');
      expect(chunkTypes(out)).toEqual(['IHDR', 'iTXt', ...chunkTypes(PICTURE).slice(1)]);
      expect(decode(out).data).toEqual(decode(PICTURE).data);
      expect(out.toString('utf8')).toContain('XML:com.adobe.xmp');
    },
  );

  it('keeps a PNG carrying a C2PA manifest byte for byte and asks for a sidecar', async () => {
    const manifest = Buffer.from('pretend JUMBF manifest store');
    const head = Buffer.alloc(8);
    head.writeUInt32BE(manifest.length, 0);
    head.write('caBX', 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(manifest, crc32(head.subarray(4))), 0);
    const signed = Buffer.concat([PICTURE.subarray(0, 33), head, manifest, crc, PICTURE.subarray(33)]);
    const embedded = embedXmpInPng(inPieces(signed, 5), xmpPacket(provenance));
    expect(await collect(embedded.body)).toEqual(signed);
    expect(embedded.placement()).toBe('sidecar');
  });

  it('passes a file that is not a PNG through untouched', async () => {
    const bytes = Buffer.from('GIF89a not a png at all, long enough to judge');
    const embedded = embedXmpInPng(inPieces(bytes, 3), xmpPacket(provenance));
    expect(await collect(embedded.body)).toEqual(bytes);
    expect(embedded.placement()).toBe('sidecar');
  });

  it('leaves a video as it came: its provenance goes beside it', async () => {
    const video = Buffer.from('....ftypisom pretend mp4');
    const step = withProvenance(provenance, 'teaser/a.take2.mp4');
    expect(await collect(step.transform(inPieces(video, 4)))).toEqual(video);
  });

  it('escapes the prompt: it stays one element, without characters XML cannot hold', () => {
    const xmp = xmpPacket(provenance);
    expect(xmp).toContain(
      '<Iptc4xmpExt:AIPromptInformation>a &lt;/mediaflow:Campaign&gt;&lt;evil/&gt; &amp; &quot;quoted&quot; bell</Iptc4xmpExt:AIPromptInformation>',
    );
    expect(xmp).not.toContain('<evil/>');
  });
});

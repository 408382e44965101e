/**
 * The one step between a download and the store that gives an output its provenance: a PNG gets
 * its XMP embedded as it streams into the store (so the sha256 and size recorded are of the file
 * delivered), anything else (an MP4, a PNG that carries a C2PA manifest) is stored as it came,
 * with an `.xmp` sidecar beside it. Called at one place, activities/finish/save-output.ts.
 */
import { Readable } from 'node:stream';
import type { Store } from '../../store/index.ts';
import { embedXmpInPng, type Placement } from './png.ts';
import { type Provenance, xmpPacket } from './xmp.ts';

export interface Sidecar {
  /** Its key in the store: the output's, with `.xmp` for its extension. */
  readonly file: string;
  readonly sha256: string;
}

export interface WithProvenance {
  /** What the download streams into the store instead of the body as it came. */
  transform(body: AsyncIterable<Buffer>): AsyncIterable<Buffer>;
  /** After the output is stored: writes the sidecar when the XMP could not be embedded. */
  sidecar(store: Store): Promise<Sidecar | null>;
}

/** `hero/a.take2.mp4` → `hero/a.take2.xmp`: Adobe's naming, which exiftool and Bridge look for. */
export function sidecarKeyOf(file: string): string {
  return `${file.replace(/\.[A-Za-z0-9]+$/, '')}.xmp`;
}

export function withProvenance(provenance: Provenance, file: string): WithProvenance {
  const xmp = xmpPacket(provenance);
  let placement: () => Placement = () => 'sidecar';
  return {
    transform(body) {
      if (!file.toLowerCase().endsWith('.png')) return body;
      const embedded = embedXmpInPng(body, xmp);
      placement = embedded.placement;
      return embedded.body;
    },
    async sidecar(store) {
      if (placement() === 'embedded') return null;
      const key = sidecarKeyOf(file);
      const bytes = Buffer.from(
        `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n${xmp}<?xpacket end="w"?>\n`,
      );
      const { sha256 } = await store.write(key, Readable.from([bytes]));
      return { file: key, sha256 };
    },
  };
}

/**
 * The one step between a download and the store that gives an output its provenance: a PNG gets
 * its XMP embedded as it streams into the store (so the sha256 and size recorded are of the file
 * delivered), anything else (an MP4, a PNG that carries a C2PA manifest mediaflow does not sign) is
 * stored as it came, with an `.xmp` sidecar beside it. With a signing key (credentials/), the file
 * is then signed: a C2PA manifest saying what the XMP says, embedded over the delivered bytes (the
 * file is held whole for that: the SDK hashes all of it). Called at two places:
 * activities/finish/save-output.ts (a new output) and activities/audit.ts (a lost one fetched again).
 */
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { ServiceError } from '../../api/client/index.ts';
import type { Store } from '../../store/index.ts';
import { manifestDefinition } from './credentials/manifest.ts';
import { signableType } from './credentials/sdk.ts';
import { signFile } from './credentials/sign.ts';
import type { IngredientFile } from './credentials/sign-request.ts';
import type { SigningKey } from './credentials/signing-key.ts';
import { whole } from './credentials/whole.ts';
import { embedXmpInPng, type Placement } from './png.ts';
import { type Provenance, xmpPacket } from './xmp.ts';

export interface Sidecar {
  /** Its key in the store: the output's, with `.xmp` for its extension. */
  readonly file: string;
  readonly sha256: string;
}

/** What signs an output, and what else its manifest names. */
export interface Credentials {
  readonly key: SigningKey;
  /** The take (regeneration) the output is of: the job's records name it too. */
  readonly take: number;
  /** What the output was made from (a clip's still), read once the output is in hand. */
  readonly ingredients: () => Promise<readonly IngredientFile[]>;
}

export interface WithProvenance {
  /** What the download streams into the store instead of the body as it came. */
  transform(body: AsyncIterable<Buffer>): AsyncIterable<Buffer>;
  /** After the output is stored: writes the sidecar when the XMP could not be embedded. */
  sidecar(store: Store): Promise<Sidecar | null>;
  /** After the output is stored: whether it was signed. */
  signed(): boolean;
}

/** `hero/a.take2.mp4` → `hero/a.take2.xmp`: Adobe's naming, which exiftool and Bridge look for. */
export function sidecarKeyOf(file: string): string {
  return `${file.replace(/\.[A-Za-z0-9]+$/, '')}.xmp`;
}

export function withProvenance(
  provenance: Provenance,
  file: string,
  credentials: Credentials | null = null,
): WithProvenance {
  const xmp = xmpPacket(provenance);
  const png = file.toLowerCase().endsWith('.png');
  const format = credentials ? signableType(file) : null;
  let placement: () => Placement = () => 'sidecar';
  let signedOne = false;
  async function* signed(
    body: AsyncIterable<Buffer>,
    signing: Credentials,
    type: string,
  ): AsyncGenerator<Buffer> {
    const served = await whole(body);
    let bytes = served;
    if (png) {
      const embedded = embedXmpInPng(Readable.from([served]), xmp, true);
      bytes = await whole(embedded.body);
      placement = embedded.placement;
    }
    let bytesSigned: Buffer;
    try {
      bytesSigned = await signFile(signing.key, {
        bytes,
        served,
        format: type,
        title: basename(file),
        definition: manifestDefinition(provenance, signing.take, file, type),
        ingredients: await signing.ingredients(),
      });
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      // With a time stamp authority, signing makes a request, which may pass: worth a retry.
      throw signingFailed(file, error, signing.key.tsaUrl !== undefined);
    }
    signedOne = true;
    yield bytesSigned;
  }
  return {
    transform(body) {
      if (credentials && format) return signed(body, credentials, format);
      if (!png) return body;
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
    signed: () => signedOne,
  };
}

/**
 * The SDK refused the file (a body that is not the PNG or MP4 it says, a certificate that does not
 * match its key): no retry makes it sign, unless the time stamp authority did not answer.
 */
function signingFailed(file: string, error: unknown, retryable: boolean): ServiceError {
  const why = error instanceof Error ? error.message : String(error);
  return new ServiceError({
    message: `signing ${file} failed: ${why}`,
    status: null,
    type: 'signing_error',
    code: 'SIGNING_FAILED',
    retryable,
  });
}

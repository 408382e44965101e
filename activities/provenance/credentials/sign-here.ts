/**
 * Signs one file with the CAI's SDK, on the thread that calls it: a C2PA manifest embedded in it (a
 * `caBX` chunk in a PNG, a `uuid` box in an MP4), over the file's bytes as delivered (its XMP
 * included). sign.ts decides which thread that is.
 *
 * The service's own manifest, when the file carries one, becomes the parent ingredient: the SDK
 * copies its whole manifest store into ours, so nothing the service signed is lost, and a reader
 * still validates it (as the ingredient's `validation_results`). Other ingredients (a clip's still)
 * are added from their bytes, their own manifests kept the same way.
 */
import { c2pa } from './sdk.ts';
import type { SignRequest } from './sign-request.ts';
import type { SigningKey } from './signing-key.ts';

const NO_VALIDATION = { verify: { verify_after_reading: false } };
/** No thumbnail: the file is its own, and a still's would double a small file. */
const BUILDER_SETTINGS = { builder: { thumbnail: { enabled: false } } };

/** Room the signature takes in the manifest, for a remote signer (ES256/Ed25519 plus a time stamp). */
const REMOTE_RESERVE = 20_000;

export async function signHere(key: SigningKey, request: SignRequest): Promise<Buffer> {
  const { Builder, CallbackSigner, LocalSigner, Reader } = await c2pa();
  const builder = Builder.withJson(request.definition, BUILDER_SETTINGS);
  if (await carriesManifest(Reader, request.served, request.format)) {
    await builder.addIngredient(
      JSON.stringify({ title: request.title, format: request.format, relationship: 'parentOf' }),
      { buffer: request.served, mimeType: request.format },
    );
  }
  for (const ingredient of request.ingredients) {
    await builder.addIngredient(
      JSON.stringify({
        title: ingredient.title,
        format: ingredient.format,
        relationship: ingredient.relationship,
        ...(ingredient.label === undefined ? {} : { label: ingredient.label }),
      }),
      { buffer: ingredient.bytes, mimeType: ingredient.format },
    );
  }
  const input = { buffer: request.bytes, mimeType: request.format };
  const output: { buffer: Buffer | null } = { buffer: null };
  if (key.kind === 'local') {
    builder.sign(LocalSigner.newSigner(key.cert, key.key, key.alg, key.tsaUrl), input, output);
  } else {
    const signer = CallbackSigner.newSigner(
      {
        alg: key.alg,
        certs: [...key.certs],
        reserveSize: REMOTE_RESERVE,
        ...(key.tsaUrl ? { tsaUrl: key.tsaUrl } : {}),
        directCoseHandling: false,
      },
      (data) => key.sign(data),
    );
    await builder.signAsync(signer, input, output);
  }
  if (!output.buffer)
    throw new Error(`the C2PA SDK returned no signed ${request.format} for ${request.title}`);
  return output.buffer;
}

/** Whether the file already holds a C2PA manifest (a provider's); a file it cannot parse holds none. */
async function carriesManifest(
  reader: Awaited<ReturnType<typeof c2pa>>['Reader'],
  bytes: Buffer,
  format: string,
): Promise<boolean> {
  try {
    // Only whether there is one: the ingredient's own reading validates it (once, not twice).
    return (await reader.fromAsset({ buffer: bytes, mimeType: format }, NO_VALIDATION)) !== null;
  } catch {
    return false;
  }
}

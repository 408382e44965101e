/**
 * The emulator signs its outputs as the providers do (OpenAI's and Google's images carry a C2PA
 * manifest): `c2pa.created`, IPTC's `trainedAlgorithmicMedia`, the model as the software agent,
 * signed with the emulator's own test certificate (`npm run setup`: scripts/make-test-certificates.sh),
 * so every run tests that mediaflow keeps a provider's manifest as its parent ingredient.
 *
 * C2PA salts each assertion, so each signing makes different bytes; a link must serve the same
 * bytes each time (a re-fetch is checked against the first), so the signed files served last are
 * kept, up to a bound: a hundred thousand predictions still cost no media memory beyond it. A file
 * served again after it left the bound is signed anew: its manifest still validates.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoredPrediction } from '../predictions/prediction.ts';

const TRAINED_ALGORITHMIC_MEDIA = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
/** Signed files kept, in bytes: a few thousand stills, a few hundred clips. */
const KEPT_BYTES = 32 * 1024 * 1024;
const INSTALL_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ProviderSignature {
  /** `prediction`'s output as served: `render`'s bytes signed, or as they are when the emulator does not sign. */
  served(
    prediction: StoredPrediction,
    render: () => Buffer,
    format: 'image/png' | 'video/mp4',
  ): Promise<Buffer>;
}

export function providerSignature(enabled: boolean, env: NodeJS.ProcessEnv = process.env): ProviderSignature {
  const key = enabled ? emulatorKey(env) : null;
  if (!key) return { served: async (_prediction, render) => render() };
  const kept = new Map<string, Buffer>();
  let keptBytes = 0;
  return {
    async served(prediction, render, format) {
      const id = `${prediction.id}.${format}`;
      const known = kept.get(id);
      if (known) return known;
      const signed = await signAsProvider(key, prediction, render(), format);
      kept.set(id, signed);
      keptBytes += signed.length;
      // Oldest first (a Map keeps insertion order) until the bound holds again.
      for (const [old, file] of kept) {
        if (keptBytes <= KEPT_BYTES) break;
        kept.delete(old);
        keptBytes -= file.length;
      }
      return signed;
    },
  };
}

interface EmulatorKey {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** The emulator's test certificate, where `npm run setup` files it; null before setup. */
function emulatorKey(env: NodeJS.ProcessEnv): EmulatorKey | null {
  for (const home of [env.MEDIAFLOW_STATE_DIR, join(INSTALL_ROOT, '.state')]) {
    if (!home) continue;
    const dir = join(home, 'c2pa');
    const cert = join(dir, 'emulator.pem');
    const key = join(dir, 'emulator.key');
    if (existsSync(cert) && existsSync(key)) return { cert: readFileSync(cert), key: readFileSync(key) };
  }
  return null;
}

async function signAsProvider(
  key: EmulatorKey,
  prediction: StoredPrediction,
  bytes: Buffer,
  format: string,
): Promise<Buffer> {
  const { Builder, LocalSigner } = await import('@contentauth/c2pa-node');
  const builder = Builder.withJson(
    {
      claim_generator_info: [{ name: 'mediaflow emulator', version: '1' }],
      title: `${prediction.id}.${format === 'video/mp4' ? 'mp4' : 'png'}`,
      format,
      assertions: [
        {
          label: 'c2pa.actions.v2',
          data: {
            actions: [
              {
                action: 'c2pa.created',
                digitalSourceType: TRAINED_ALGORITHMIC_MEDIA,
                softwareAgent: { name: `emulator ${prediction.label}` },
              },
            ],
          },
        },
      ],
    },
    { builder: { thumbnail: { enabled: false } } },
  );
  const output: { buffer: Buffer | null } = { buffer: null };
  builder.sign(
    LocalSigner.newSigner(key.cert, key.key, 'es256'),
    { buffer: bytes, mimeType: format },
    output,
  );
  return output.buffer ?? bytes;
}

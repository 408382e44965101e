/**
 * Which key signs the outputs, read in the process that signs (the worker), never passed through
 * Temporal, a log or argv:
 * 1. a remote signer registered by the embedding program (a KMS or an HSM: `useRemoteSigner`);
 * 2. MEDIAFLOW_C2PA_CERT and MEDIAFLOW_C2PA_KEY: each a PEM file's path or the PEM itself (a
 *    secret store's environment variable), the certificate chain leaf first, the key ES256 (P-256)
 *    or Ed25519; MEDIAFLOW_C2PA_TSA_URL adds an RFC 3161 time stamp to every signature;
 * 3. the local test certificate `npm run setup` makes (scripts/make-test-certificates.sh), under
 *    the state folder: readers call it untrusted, and commands say so (docs/provenance.md).
 * None of them: outputs are delivered unsigned, with their XMP, and commands say that too.
 */
import { createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type SigningAlgorithm = 'es256' | 'ed25519';

/** The environment variables a signing key is read from (an empty one is as if unset). */
export const SIGNING_KEY_VARIABLES = [
  'MEDIAFLOW_C2PA_CERT',
  'MEDIAFLOW_C2PA_KEY',
  'MEDIAFLOW_C2PA_TSA_URL',
] as const;

/** A key mediaflow holds: the certificate chain and the private key, as PEM. */
export interface LocalKey {
  readonly kind: 'local';
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly alg: SigningAlgorithm;
  readonly tsaUrl: string | undefined;
  /** The local test certificate: readers will call the signer untrusted. */
  readonly test: boolean;
}

/** A key mediaflow never sees: `sign` returns the raw signature of `data` (a KMS, an HSM). */
export interface RemoteSigner {
  readonly alg: SigningAlgorithm;
  /** The certificate chain, PEM, leaf first (one buffer may hold the whole chain). */
  readonly certs: readonly Buffer[];
  readonly tsaUrl?: string;
  sign(data: Buffer): Promise<Buffer>;
}

export type SigningKey = LocalKey | ({ readonly kind: 'remote' } & RemoteSigner);

const INSTALL_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

let remote: RemoteSigner | undefined;

/** For a program that embeds the worker: every output from now on is signed by `signer`. */
export function useRemoteSigner(signer: RemoteSigner | undefined): void {
  remote = signer;
}

export class SigningKeyError extends Error {
  override readonly name = 'SigningKeyError';
}

/** The key outputs are signed with, or null when there is none. Throws a SigningKeyError for a bad one. */
export function signingKey(env: NodeJS.ProcessEnv = process.env): SigningKey | null {
  if (remote) return { kind: 'remote', ...remote };
  const tsaUrl = env.MEDIAFLOW_C2PA_TSA_URL || undefined;
  const cert = env.MEDIAFLOW_C2PA_CERT;
  const key = env.MEDIAFLOW_C2PA_KEY;
  if (cert || key) {
    if (!cert || !key)
      throw new SigningKeyError('set both MEDIAFLOW_C2PA_CERT and MEDIAFLOW_C2PA_KEY (PEM, or paths to PEM)');
    return localKey(pem(cert, 'MEDIAFLOW_C2PA_CERT'), pem(key, 'MEDIAFLOW_C2PA_KEY'), tsaUrl, false);
  }
  const dir = testCertificateDir('signer', env);
  return dir
    ? localKey(readFileSync(join(dir, 'signer.pem')), readFileSync(join(dir, 'signer.key')), tsaUrl, true)
    : null;
}

/**
 * The folder holding the local test certificate named `name` (signer, emulator), or null: the state
 * folder's `c2pa/` (MEDIAFLOW_STATE_DIR, else `.state/` of the install, where `npm run setup` puts it,
 * else `~/.local/state/mediaflow`: cli/state-home.ts).
 */
export function testCertificateDir(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const homes = [
    env.MEDIAFLOW_STATE_DIR,
    join(INSTALL_ROOT, '.state'),
    join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'mediaflow'),
  ];
  for (const home of homes) {
    if (!home) continue;
    const dir = join(home, 'c2pa');
    if (existsSync(join(dir, `${name}.pem`)) && existsSync(join(dir, `${name}.key`))) return dir;
  }
  return null;
}

/** The PEM itself, or the file a path names; the value is never quoted in an error (it may be the key). */
function pem(value: string, variable: string): Buffer {
  if (value.trimStart().startsWith('-----BEGIN')) return Buffer.from(value);
  try {
    return readFileSync(value);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new SigningKeyError(`${variable} names no readable PEM file (${code})`);
  }
}

function localKey(cert: Buffer, key: Buffer, tsaUrl: string | undefined, test: boolean): LocalKey {
  return { kind: 'local', cert, key, alg: algorithmOf(key), tsaUrl, test };
}

/** ES256 for a P-256 key, Ed25519 for an Ed25519 one: the two C2PA algorithms mediaflow signs with. */
export function algorithmOf(key: Buffer): SigningAlgorithm {
  let parsed: ReturnType<typeof createPrivateKey>;
  try {
    parsed = createPrivateKey(key);
  } catch {
    throw new SigningKeyError('MEDIAFLOW_C2PA_KEY is not a PEM private key');
  }
  if (parsed.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (parsed.asymmetricKeyType === 'ec' && parsed.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return 'es256';
  const type = parsed.asymmetricKeyDetails?.namedCurve ?? parsed.asymmetricKeyType;
  throw new SigningKeyError(`the C2PA key is ${type}: use an ES256 (P-256) or an Ed25519 key`);
}

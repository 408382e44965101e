/**
 * Content Credentials, in process: an output signed on its way into the store says in its C2PA
 * manifest what its XMP says; a provider's manifest is kept as the parent ingredient and a still
 * as a clip's input; one changed byte reads as invalid; trust follows the anchors given; keys come
 * from the environment (a path or the PEM itself), ES256 or Ed25519, and a bad one is refused
 * without its value quoted. The emulator signs as a provider, the same bytes for the same link.
 */
import { createPrivateKey, sign as signWith } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFile, failsVerification } from '../../activities/provenance/credentials/check-outputs.ts';
import { manifestDefinition } from '../../activities/provenance/credentials/manifest.ts';
import { signingNotice } from '../../activities/provenance/credentials/notice.ts';
import { readCredential } from '../../activities/provenance/credentials/read.ts';
import { signFile } from '../../activities/provenance/credentials/sign.ts';
import {
  type LocalKey,
  signingKey,
  useRemoteSigner,
} from '../../activities/provenance/credentials/signing-key.ts';
import { whole } from '../../activities/provenance/credentials/whole.ts';
import { withProvenance } from '../../activities/provenance/with-provenance.ts';
import type { Provenance } from '../../activities/provenance/xmp.ts';
import { renderPng } from '../../emulator/media/png.ts';
import { providerSignature } from '../../emulator/signing/provider-signature.ts';
import { manifestEntry } from '../records/manifest-entry.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/c2pa/${name}`, import.meta.url));
const env = (alg: 'es256' | 'ed25519') => ({
  MEDIAFLOW_C2PA_CERT: fixture(`${alg}.pem`),
  MEDIAFLOW_C2PA_KEY: fixture(`${alg}.key`),
});
const keyOf = (alg: 'es256' | 'ed25519') => signingKey(env(alg)) as LocalKey;
const CA = readFileSync(fixture('ca.pem'), 'utf8');

const PROVENANCE: Provenance = {
  model: 'V4',
  prompt: 'Slow orbit around the sneaker <b>&</b>',
  campaign: 'spring',
  planDigest: '0123456789abcdef0123456789abcdef',
  jobKey: 'teaser-sneaker',
  predictionId: 'pred_9',
  parentFile: 'hero/sneaker.png',
  review: {
    action: 'approve',
    by: 'Ana',
    at: '2026-11-27T06:00:00.000Z',
    note: 'keep the marble',
    of: 'parent',
  },
  createdAt: '2026-11-27T05:00:00.000Z',
};

const still = renderPng('a sneaker on marble', 7, { width: 96, height: 54 });

async function signed(bytes: Buffer, alg: 'es256' | 'ed25519' = 'es256', ingredients = []) {
  const output = withProvenance(PROVENANCE, 'hero/sneaker.png', {
    key: keyOf(alg),
    take: 2,
    ingredients: async () => ingredients,
  });
  return { bytes: await whole(output.transform(Readable.from([bytes]))), output };
}

/** A provider's own signed output, as the emulator serves it: an ES256 manifest of its own. */
async function providerSigned(bytes: Buffer): Promise<Buffer> {
  return signFile(keyOf('es256'), {
    bytes,
    served: bytes,
    format: 'image/png',
    title: '7.png',
    definition: {
      ...manifestDefinition(PROVENANCE, 0, '7.png', 'image/png'),
      claim_generator_info: [{ name: 'a provider' }],
    },
    ingredients: [],
  });
}

describe('signed outputs', () => {
  it('say in their manifest what their XMP says, with the XMP embedded and signed over', async () => {
    const { bytes, output } = await signed(still, 'ed25519');
    expect(output.signed()).toBe(true);
    const credential = await readCredential(bytes, 'image/png');
    expect(credential).toMatchObject({
      state: 'valid',
      generated: true,
      trusted: false,
      signer: expect.stringContaining('fixture ed25519 signer'),
    });
    const xmp = bytes.toString('utf8');
    const field = (name: string) =>
      new RegExp(`<mediaflow:${name}>([^<]*)</mediaflow:${name}>`).exec(xmp)?.[1];
    const unescaped = (text: string | undefined) =>
      text?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    expect(credential.mediaflow).toEqual({
      campaign: field('Campaign'),
      plan_digest: field('PlanDigest'),
      job: field('JobKey'),
      take: 2,
      prediction: field('PredictionID'),
      model: /<Iptc4xmpExt:AISystemUsed>([^<]*)</.exec(xmp)?.[1],
      prompt: unescaped(/<Iptc4xmpExt:AIPromptInformation>([^<]*)</.exec(xmp)?.[1]),
      parent_file: field('ParentFile'),
      review: {
        action: field('ReviewDecision'),
        by: field('ReviewedBy'),
        at: field('ReviewedAt'),
        note: field('ReviewNote'),
        of: field('ReviewOf'),
      },
    });
    expect(await output.sidecar({} as never)).toBeNull();
  });

  it('keep a provider’s manifest as the parent ingredient, and a clip’s still as its input', async () => {
    expect((await readCredential(await providerSigned(still), 'image/png')).state).toBe('valid');
    const { bytes } = await signed(await providerSigned(still));
    expect((await readCredential(bytes, 'image/png')).ingredients).toEqual([
      { title: 'sneaker.png', relationship: 'parentOf' },
    ]);
    const input = {
      bytes: (await signed(still)).bytes,
      format: 'image/png',
      title: 'sneaker.png',
      relationship: 'inputTo' as const,
    };
    const clip = await signed(still, 'es256', [input] as never);
    const credential = await readCredential(clip.bytes, 'image/png');
    expect(credential.state).toBe('valid');
    expect(credential.ingredients).toEqual([{ title: 'sneaker.png', relationship: 'inputTo' }]);
    // Unsigned by anyone: no parent is invented.
    expect((await readCredential((await signed(still)).bytes, 'image/png')).ingredients).toEqual([]);
  });

  it('read as invalid once a byte changed, and as unsigned without a manifest', async () => {
    const { bytes } = await signed(still);
    const changed = Buffer.from(bytes);
    changed[changed.indexOf('IDAT') + 8]! ^= 0x01;
    const credential = await readCredential(changed, 'image/png');
    expect(credential.state).toBe('invalid');
    expect(credential.failures.join()).toContain('assertion.dataHash.mismatch');
    expect((await readCredential(still, 'image/png')).state).toBe('unsigned');
  });

  it('are trusted only under the anchors given', async () => {
    const { bytes } = await signed(still);
    expect((await readCredential(bytes, 'image/png', CA)).trusted).toBe(true);
    const stranger = readFileSync(fixture('es256.pem'), 'utf8').split(/(?<=-----END CERTIFICATE-----\n)/)[0]!;
    expect((await readCredential(bytes, 'image/png', stranger)).trusted).toBe(false);
  });

  it('fail for good on a body that is not what it says, and for now when the time stamp authority is away', async () => {
    const notPng = withProvenance(PROVENANCE, 'hero/sneaker.png', {
      key: keyOf('es256'),
      take: 0,
      ingredients: async () => [],
    });
    await expect(
      whole(notPng.transform(Readable.from([Buffer.from('<html>gone</html>')]))),
    ).rejects.toMatchObject({
      code: 'SIGNING_FAILED',
      retryable: false,
    });
    const stamped = signingKey({ ...env('es256'), MEDIAFLOW_C2PA_TSA_URL: 'http://127.0.0.1:9/tsa' })!;
    const away = withProvenance(PROVENANCE, 'hero/sneaker.png', {
      key: stamped,
      take: 0,
      ingredients: async () => [],
    });
    await expect(whole(away.transform(Readable.from([still])))).rejects.toMatchObject({
      code: 'SIGNING_FAILED',
      retryable: true,
    });
    expect(away.signed()).toBe(false);
  });

  it('without a key are stored with their XMP alone, as before', async () => {
    const output = withProvenance(PROVENANCE, 'hero/sneaker.png', null);
    const bytes = await whole(output.transform(Readable.from([still])));
    expect(output.signed()).toBe(false);
    expect((await readCredential(bytes, 'image/png')).state).toBe('unsigned');
    expect(bytes.toString('latin1')).toContain('XML:com.adobe.xmp');
  });
});

describe('mediaflow verify', () => {
  it('fails a file whose manifest names another take or job than its record', async () => {
    const { bytes } = await signed(still);
    const entry = {
      ...manifestEntry(PROVENANCE.jobKey),
      file: 'hero/sneaker.png',
      prediction_id: PROVENANCE.predictionId,
      regenerations: 2,
    };
    const output = (of: typeof entry) => ({ kind: 'output' as const, entry: of });
    const matching = await checkFile('hero/sneaker.png', bytes, output(entry));
    expect([matching.records, failsVerification(matching)]).toEqual(['matches', false]);
    const earlier = await checkFile('hero/sneaker.png', bytes, output({ ...entry, regenerations: 0 }));
    expect([earlier.records, failsVerification(earlier)]).toEqual(['names take 2 (the record: 0)', true]);
    const other = await checkFile('hero/sneaker.png', bytes, output({ ...entry, key: 'hero-boot' }));
    expect(other.records).toBe('names job teaser-sneaker (the record: hero-boot)');
    const unsigned = await checkFile('hero/sneaker.png', still, output(entry));
    expect([unsigned.state, failsVerification(unsigned)]).toEqual(['unsigned', false]);
  });
});

describe('signing keys', () => {
  it('are read from paths or from the PEM itself, ES256 or Ed25519', () => {
    expect(signingKey(env('es256'))).toMatchObject({ kind: 'local', alg: 'es256', test: false });
    const inline = {
      MEDIAFLOW_C2PA_CERT: readFileSync(fixture('ed25519.pem'), 'utf8'),
      MEDIAFLOW_C2PA_KEY: readFileSync(fixture('ed25519.key'), 'utf8'),
    };
    expect(signingKey({ ...inline, MEDIAFLOW_C2PA_TSA_URL: 'http://tsa.example/' })).toMatchObject({
      alg: 'ed25519',
      tsaUrl: 'http://tsa.example/',
    });
  });

  it('can be a remote signer (a KMS) that never hands mediaflow the private key', async () => {
    const held = createPrivateKey(readFileSync(fixture('es256.key')));
    let asked = 0;
    useRemoteSigner({
      alg: 'es256',
      certs: [readFileSync(fixture('es256.pem'))],
      sign: async (data) => {
        asked++;
        return signWith('sha256', data, { key: held, dsaEncoding: 'ieee-p1363' });
      },
    });
    try {
      const key = signingKey(env('ed25519'));
      expect(key).toMatchObject({ kind: 'remote', alg: 'es256' });
      const output = withProvenance(PROVENANCE, 'hero/sneaker.png', {
        key: key!,
        take: 0,
        ingredients: async () => [],
      });
      const bytes = await whole(output.transform(Readable.from([still])));
      expect(asked).toBe(1);
      expect(await readCredential(bytes, 'image/png', CA)).toMatchObject({ state: 'valid', trusted: true });
    } finally {
      useRemoteSigner(undefined);
    }
  });

  it('are said in a notice unless they are the user’s own, in lines that fit the live frame', () => {
    const state = mkdtempSync(join(tmpdir(), 'mf-signer-c2pa-'));
    mkdirSync(join(state, 'c2pa'));
    copyFileSync(fixture('es256.pem'), join(state, 'c2pa', 'signer.pem'));
    copyFileSync(fixture('es256.key'), join(state, 'c2pa', 'signer.key'));
    const test = signingNotice({ MEDIAFLOW_STATE_DIR: state });
    expect(test.join(' ')).toMatch(/signed with a test certificate: readers will call them untrusted/);
    const bad = signingNotice({ MEDIAFLOW_C2PA_CERT: fixture('es256.pem') });
    expect(bad.join(' ')).toMatch(/cannot be signed .*set both/);
    for (const line of [...test, ...bad]) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(signingNotice(env('es256'))).toEqual([]);
  });

  it('refuse a half-given, unreadable or unsupported key without quoting it', () => {
    expect(() => signingKey({ MEDIAFLOW_C2PA_CERT: fixture('es256.pem') })).toThrow(/set both/);
    expect(() => signingKey({ ...env('es256'), MEDIAFLOW_C2PA_KEY: '/nowhere/key.pem' })).toThrow(
      /names no readable PEM file \(ENOENT\)/,
    );
    const rsa = readFileSync(fixture('rsa.key'), 'utf8');
    let message = '';
    try {
      signingKey({ ...env('es256'), MEDIAFLOW_C2PA_KEY: rsa });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/rsa: use an ES256 \(P-256\) or an Ed25519 key/);
    expect(message).not.toContain('PRIVATE KEY');
  });
});

describe('the emulator', () => {
  const state = mkdtempSync(join(tmpdir(), 'mf-emulator-c2pa-'));
  mkdirSync(join(state, 'c2pa'));
  copyFileSync(fixture('es256.pem'), join(state, 'c2pa', 'emulator.pem'));
  copyFileSync(fixture('es256.key'), join(state, 'c2pa', 'emulator.key'));
  const prediction = { id: 7, label: 'I1' } as never;

  it('signs what it serves as a provider, the same bytes for the same link', async () => {
    const signature = providerSignature(true, { MEDIAFLOW_STATE_DIR: state });
    const served = await signature.served(prediction, () => still, 'image/png');
    const credential = await readCredential(served, 'image/png');
    expect(credential).toMatchObject({
      state: 'valid',
      generated: true,
      signer: expect.stringContaining('fixture es256'),
    });
    expect(await signature.served(prediction, () => still, 'image/png')).toEqual(served);
  });

  it('serves its files unsigned in the mode without credentials', async () => {
    const signature = providerSignature(false, { MEDIAFLOW_STATE_DIR: state });
    expect(await signature.served(prediction, () => still, 'image/png')).toEqual(still);
  });
});

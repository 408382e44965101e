/**
 * Reads a file's C2PA manifest back with the same SDK that signed it, and says what a user asks of
 * it: is it signed, does it validate (else which assertion or hash failed), is its signer on the
 * trust list given, does it say it was generated, what does mediaflow's assertion name, and which
 * ingredients it keeps. The SDK's answer is parsed (zod), never trusted by shape.
 */
import { z } from 'zod';
import { COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA, TRAINED_ALGORITHMIC_MEDIA } from '../xmp.ts';
import { MEDIAFLOW_ASSERTION, MediaflowAssertion } from './manifest.ts';
import { c2pa } from './sdk.ts';

/** A signer untrusted is not a file invalid: trust is said apart (`trusted`). */
const UNTRUSTED = 'signingCredential.untrusted';

const Status = z.object({ code: z.string(), url: z.string().optional(), explanation: z.string().optional() });
const Assertion = z.object({ label: z.string(), data: z.unknown() });
const Action = z.object({ action: z.string(), digitalSourceType: z.string().optional() }).loose();
const ManifestJson = z
  .object({
    assertions: z.array(Assertion).default([]),
    ingredients: z
      .array(z.object({ title: z.string().optional(), relationship: z.string().optional() }).loose())
      .default([]),
    signature_info: z
      .object({ common_name: z.string().optional(), issuer: z.string().optional() })
      .loose()
      .optional(),
  })
  .loose();
const StoreJson = z
  .object({
    active_manifest: z.string().optional(),
    manifests: z.record(z.string(), ManifestJson),
    validation_status: z.array(Status).optional(),
    validation_results: z
      .object({
        activeManifest: z
          .object({ failure: z.array(Status).default([]) })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

export interface Credential {
  readonly state: 'valid' | 'invalid' | 'unsigned';
  /** What failed, one `code: explanation (where)` each, when invalid. */
  readonly failures: readonly string[];
  readonly trusted: boolean;
  /** The signing certificate's common name and organisation. */
  readonly signer: string | null;
  /** `c2pa.created` with IPTC's trainedAlgorithmicMedia. */
  readonly generated: boolean;
  readonly mediaflow: MediaflowAssertion | null;
  readonly ingredients: readonly { readonly title: string; readonly relationship: string }[];
}

export const UNSIGNED: Credential = {
  state: 'unsigned',
  failures: [],
  trusted: false,
  signer: null,
  generated: false,
  mediaflow: null,
  ingredients: [],
};

/** `trustAnchors`: PEM certificates whose chains are trusted (`mediaflow verify --trust`). */
export async function readCredential(
  bytes: Buffer,
  format: string,
  trustAnchors?: string,
): Promise<Credential> {
  const { Reader } = await c2pa();
  const settings = trustAnchors
    ? { verify: { verify_trust: true }, trust: { trust_anchors: trustAnchors } }
    : { verify: { verify_trust: false } };
  let reader: Awaited<ReturnType<typeof Reader.fromAsset>>;
  try {
    reader = await Reader.fromAsset({ buffer: bytes, mimeType: format }, settings);
  } catch (error) {
    // A manifest so damaged the SDK cannot even parse it is a failure, not an absence.
    return { ...UNSIGNED, state: 'invalid', failures: [`unreadable: ${(error as Error).message}`] };
  }
  if (!reader) return UNSIGNED;
  const store = StoreJson.parse(reader.json());
  const active = store.active_manifest === undefined ? undefined : store.manifests[store.active_manifest];
  const statuses = store.validation_results?.activeManifest?.failure ?? store.validation_status ?? [];
  const failures = statuses
    .filter((status) => status.code !== UNTRUSTED)
    .map((status) => `${status.code}: ${status.explanation ?? ''}${status.url ? ` (${status.url})` : ''}`);
  const data = (label: string) => active?.assertions.find((assertion) => assertion.label === label)?.data;
  const actions = z
    .object({ actions: z.array(Action) })
    .safeParse(data('c2pa.actions.v2') ?? data('c2pa.actions'));
  const mediaflow = MediaflowAssertion.safeParse(data(MEDIAFLOW_ASSERTION));
  const signature = active?.signature_info;
  return {
    state: active && failures.length === 0 ? 'valid' : 'invalid',
    failures: active ? failures : ['no active manifest'],
    trusted: Boolean(trustAnchors) && !statuses.some((status) => status.code === UNTRUSTED),
    signer: signature ? [signature.common_name, signature.issuer].filter(Boolean).join(', ') || null : null,
    // Made by a model, or edited from what a model made (a derivative): both disclose AI media.
    generated: Boolean(
      actions.success &&
        actions.data.actions.some(
          (action) =>
            (action.action === 'c2pa.created' && action.digitalSourceType === TRAINED_ALGORITHMIC_MEDIA) ||
            action.digitalSourceType === COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA,
        ),
    ),
    mediaflow: mediaflow.success ? mediaflow.data : null,
    ingredients: (active?.ingredients ?? []).map((ingredient) => ({
      title: ingredient.title ?? '',
      relationship: ingredient.relationship ?? '',
    })),
  };
}

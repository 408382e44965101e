/**
 * The credentials an output is signed with, gathered as it is saved (or fetched again): the
 * process's signing key, read once, and what the output was made from: the parent's delivered
 * file (a clip's still, an `inputTo` ingredient, its own manifest and approval kept inside).
 */
import { basename } from 'node:path';
import { ServiceError } from '../../../api/client/index.ts';
import type { Store } from '../../../store/index.ts';
import type { Credentials } from '../with-provenance.ts';
import { PARENT_INGREDIENT } from './manifest.ts';
import { signableType } from './sdk.ts';
import type { IngredientFile } from './sign-request.ts';
import { SIGNING_KEY_VARIABLES, type SigningKey, SigningKeyError, signingKey } from './signing-key.ts';
import { whole } from './whole.ts';

let read: { readonly from: string; readonly key: SigningKey | null } | undefined;

/** The signing key of this process's environment, read once (again only when the environment changes). */
export function currentSigningKey(env: NodeJS.ProcessEnv = process.env): SigningKey | null {
  const from = [...SIGNING_KEY_VARIABLES, 'MEDIAFLOW_STATE_DIR'].map((name) => env[name] ?? '').join('\n');
  if (read?.from !== from) {
    try {
      read = { from, key: signingKey(env) };
    } catch (error) {
      if (!(error instanceof SigningKeyError)) throw error;
      // A bad key stays bad however often the job is retried: it fails with the reason and the fix.
      throw new ServiceError({
        message: `outputs cannot be signed: ${error.message} (docs/provenance.md)`,
        status: null,
        type: 'signing_error',
        code: 'SIGNING_MISCONFIGURED',
        retryable: false,
      });
    }
  }
  return read.key;
}

/** How a derivative names its parent: the parent's bytes, already read to derive from. */
export interface ParentInHand {
  readonly relationship: IngredientFile['relationship'];
  readonly bytes: () => Promise<Buffer>;
}

export function credentialsOf(
  store: Store,
  take: number,
  parentFile: string | null,
  inHand?: ParentInHand,
): Credentials | null {
  const key = currentSigningKey();
  if (!key) return null;
  return {
    key,
    take,
    ingredients: async () => {
      const parent = parentFile === null ? null : await ingredientOf(store, parentFile, inHand);
      return parent ? [parent] : [];
    },
  };
}

/** The parent's file as an ingredient; null when it is gone or of a type C2PA does not read. */
async function ingredientOf(
  store: Store,
  file: string,
  inHand: ParentInHand | undefined,
): Promise<IngredientFile | null> {
  const format = signableType(file);
  if (format === null) return null;
  const title = basename(file);
  if (inHand) {
    const label = inHand.relationship === 'parentOf' ? { label: PARENT_INGREDIENT } : {};
    return { bytes: await inHand.bytes(), format, title, relationship: inHand.relationship, ...label };
  }
  const body = await store.open(file);
  return body ? { bytes: await whole(body), format, title, relationship: 'inputTo' } : null;
}

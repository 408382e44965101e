/**
 * What a failure says about itself. sharp's refusals (a corrupt file, an impossible region) come
 * back the same on every try, so they become DeriveErrors; a system error (an errno code: out of
 * file handles, of memory, of disk) may pass, so it is thrown as it is and the activity retries.
 */

/** The errno code (`ENOENT`, `EMFILE`...) of a system error, or null for any other failure. */
export function errnoOf(error: unknown): string | null {
  const code = error instanceof Error && 'code' in error ? error.code : null;
  return typeof code === 'string' ? code : null;
}

/** The failure's own words, for a DeriveError's reason. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The Content-Type an upload is served with. The uploader's declared type is echoed only when it is
 * a plain image or video type: anything else (text/html, application/javascript, image/svg+xml,
 * which runs script) would let an upload run script on the emulator's origin, where the key-less
 * `/_emulator` controls live, so it is served as opaque bytes, with nosniff and a sandbox CSP so
 * no browser second-guesses that.
 */

const MEDIA_TYPE = /^(image|video)\/[a-z0-9][a-z0-9.+-]{0,62}$/;
/** Image types a browser renders as a document that can run script. */
const ACTIVE_IMAGE_TYPES = new Set(['image/svg+xml']);

export function servedType(declared: string): string {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  return MEDIA_TYPE.test(type) && !ACTIVE_IMAGE_TYPES.has(type) ? type : 'application/octet-stream';
}

/** Headers sent with every upload, whatever its type. */
export const UPLOAD_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
};

/**
 * Which backend a spec's `output.dir` (or `--output`) names: `s3://bucket/prefix` is object
 * storage, anything else a folder.
 */
export type Location =
  | { readonly kind: 'folder'; readonly path: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string };

const S3_URL = /^s3:\/\/([^/]+)(?:\/(.*))?$/;
/** S3's bucket naming rules (lower case, digits, dots, hyphens; 3 to 63 characters). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function isS3Url(text: string): boolean {
  return text.startsWith('s3://');
}

/** The location `text` names; throws with the reason when an s3:// URL is malformed. */
export function parseLocation(text: string): Location {
  if (!isS3Url(text)) return { kind: 'folder', path: text };
  const match = S3_URL.exec(text);
  const bucket = match?.[1] ?? '';
  if (!BUCKET.test(bucket)) {
    throw new Error(
      `${JSON.stringify(text)}: the bucket must be 3 to 63 lower-case letters, digits, dots or hyphens`,
    );
  }
  const path = (match?.[2] ?? '').replace(/\/+$/, '');
  const segments = path === '' ? [] : path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error(`${JSON.stringify(text)}: the prefix must be a path without empty, "." or ".." parts`);
  }
  return { kind: 's3', bucket, prefix: segments.length === 0 ? '' : `${segments.join('/')}/` };
}

/** The URL of an S3 location, as parseLocation reads it back (no trailing slash). */
export function s3Url(where: { readonly bucket: string; readonly prefix: string }): string {
  return `s3://${where.bucket}/${where.prefix}`.replace(/\/$/, '');
}

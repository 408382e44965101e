/**
 * Local pictures named in image fields. They are checked now (exist, are PNG/JPEG/WebP by their
 * first bytes) so a typo fails at `validate` rather than mid-campaign, and hashed so the job key
 * follows the picture's content: editing it regenerates the job, moving the folder does not.
 * The engine uploads them at run time (LOCAL_FILE_PREFIX).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export type LocalFile =
  | { readonly ok: true; readonly path: string; readonly sha256: string }
  | { readonly ok: false; readonly message: string };

/** Values of image fields that are not local paths: URLs, data URIs and the parent's output. */
const REMOTE = /^(https?:\/\/|data:)/i;

export function isLocalPath(value: string): boolean {
  return !REMOTE.test(value) && !value.includes('{{');
}

const SIGNATURES: readonly { readonly kind: string; readonly test: (bytes: Buffer) => boolean }[] = [
  {
    kind: 'PNG',
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { kind: 'JPEG', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  {
    kind: 'WebP',
    test: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
  },
];

/** Resolves and checks local files once each, however many jobs name them. */
export class LocalFiles {
  private readonly cache = new Map<string, LocalFile>();

  private readonly specDir: string;

  constructor(specDir: string) {
    this.specDir = specDir;
  }

  resolve(value: string): LocalFile {
    const absolute = path.resolve(this.specDir, value);
    let file = this.cache.get(absolute);
    if (!file) {
      file = check(value, absolute);
      this.cache.set(absolute, file);
    }
    return file;
  }
}

function check(value: string, absolute: string): LocalFile {
  let bytes: Buffer;
  try {
    if (!statSync(absolute).isFile())
      return { ok: false, message: `"${value}" is a folder, not an image file` };
    bytes = readFileSync(absolute);
  } catch {
    return {
      ok: false,
      message: `image file "${value}" not found (looked for ${absolute}); image fields take a path relative to the spec, an http(s) URL, a data: URI or {{from.output}}`,
    };
  }
  if (!SIGNATURES.some((signature) => signature.test(bytes))) {
    return { ok: false, message: `"${value}" is not a PNG, JPEG or WebP image (checked its first bytes)` };
  }
  return { ok: true, path: absolute, sha256: createHash('sha256').update(bytes).digest('hex') };
}

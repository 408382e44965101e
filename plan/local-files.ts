/**
 * Local pictures named in image fields. They are checked now (exist, are PNG/JPEG/WebP by their
 * first bytes) so a typo fails at `validate` rather than mid-campaign, and hashed so the job key
 * follows the picture's content: editing it regenerates the job, moving the folder does not.
 * The engine uploads them at run time (LOCAL_FILE_PREFIX).
 *
 * They are read only from under the spec's folder, or a folder the user allowed
 * (`--allow-input-root`): a spec from elsewhere must not send any picture on the machine to the
 * service. Links are resolved first, so a link inside the folder cannot lead out of it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
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
  private readonly roots: readonly string[];

  private readonly specDir: string;

  /** `allowedRoots`: absolute folders besides the spec's own that inputs may come from. */
  constructor(specDir: string, allowedRoots: readonly string[] = []) {
    this.specDir = specDir;

    this.roots = [specDir, ...allowedRoots].map(real);
  }

  resolve(value: string): LocalFile {
    const absolute = path.resolve(this.specDir, value);
    let file = this.cache.get(absolute);
    if (!file) {
      file = this.check(value, absolute);
      this.cache.set(absolute, file);
    }
    return file;
  }

  private check(value: string, absolute: string): LocalFile {
    const resolved = real(absolute);
    if (this.roots.some((root) => isUnder(root, resolved))) return check(value, absolute);
    const allowed = this.roots.length > 1 ? ` or an allowed root (${this.roots.slice(1).join(', ')})` : '';
    return {
      ok: false,
      message: `image file "${value}" is outside the spec's folder ${this.roots[0]}${allowed}; move it there, or allow its folder with --allow-input-root ${path.dirname(resolved)}`,
    };
  }
}

/** The path with links resolved; as given when it does not exist (check() then says so). */
function real(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

function isUnder(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
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

/**
 * Local pictures named in image fields, and the files derive steps read (a logo, a font, a
 * sound). They are checked now (exist, are of their kind by their first bytes) so a typo fails at
 * `validate` rather than mid-campaign, and hashed so the key follows the file's content: editing
 * it regenerates the job or derivative, moving the folder does not. The engine uploads pictures
 * at run time (LOCAL_FILE_PREFIX); the worker reads a derive step's files where they are.
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

type Signature = (bytes: Buffer) => boolean;

const ascii = (bytes: Buffer, start: number, text: string) =>
  bytes.toString('latin1', start, start + text.length) === text;

const PICTURES: readonly Signature[] = [
  (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP'),
];

/** What a file must be, and how its problems are told. */
export interface FileKind {
  readonly name: string;
  /** `an image file`: what a folder given in its place is not. */
  readonly noun: string;
  /** `a PNG, JPEG or WebP image`: what its first bytes must show. */
  readonly formats: string;
  /** What the field takes, said when the file is not there. */
  readonly takes: string;
  readonly signatures: readonly Signature[];
}

export const INPUT_IMAGE: FileKind = {
  name: 'image',
  noun: 'an image file',
  formats: 'a PNG, JPEG or WebP image',
  takes: 'image fields take a path relative to the spec, an http(s) URL, a data: URI or {{from.output}}',
  signatures: PICTURES,
};

export const OVERLAY_IMAGE: FileKind = {
  ...INPUT_IMAGE,
  takes: 'an overlay takes a path relative to the spec',
};

export const FONT: FileKind = {
  name: 'font',
  noun: 'a font file',
  formats: 'a TrueType or OpenType font',
  takes: 'a font is a path relative to the spec (default: Noto Sans JP Bold)',
  signatures: [
    (b) => b.subarray(0, 4).equals(Buffer.from([0, 1, 0, 0])),
    (b) => ascii(b, 0, 'OTTO') || ascii(b, 0, 'true') || ascii(b, 0, 'ttcf'),
  ],
};

export const SOUND: FileKind = {
  name: 'audio',
  noun: 'an audio file',
  formats: 'a WAV, MP3, AAC (M4A), Ogg or FLAC file',
  takes: 'audio takes a path relative to the spec',
  signatures: [
    (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WAVE'),
    // ID3 tags, else an MPEG audio frame's sync bits (MP3, and AAC in ADTS).
    (b) => ascii(b, 0, 'ID3') || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0),
    (b) => ascii(b, 4, 'ftyp'),
    (b) => ascii(b, 0, 'OggS') || ascii(b, 0, 'fLaC'),
  ],
};

/** Resolves and checks local files once each, however many jobs name them. */
export class LocalFiles {
  /** By kind, since a kind decides the checks and the messages. */
  private readonly cache = new Map<FileKind, Map<string, LocalFile>>();
  private readonly roots: readonly string[];

  private readonly specDir: string;

  /** `allowedRoots`: absolute folders besides the spec's own that inputs may come from. */
  constructor(specDir: string, allowedRoots: readonly string[] = []) {
    this.specDir = specDir;

    this.roots = [specDir, ...allowedRoots].map(real);
  }

  resolve(value: string, kind: FileKind = INPUT_IMAGE): LocalFile {
    return this.cached(kind, path.resolve(this.specDir, value), () => this.check(value, kind));
  }

  private cached(kind: FileKind, absolute: string, make: () => LocalFile): LocalFile {
    const files = this.cache.get(kind) ?? new Map<string, LocalFile>();
    this.cache.set(kind, files);
    let file = files.get(absolute);
    if (!file) {
      file = make();
      files.set(absolute, file);
    }
    return file;
  }

  private check(value: string, kind: FileKind): LocalFile {
    const absolute = path.resolve(this.specDir, value);
    const resolved = real(absolute);
    if (this.roots.some((root) => isUnder(root, resolved))) return check(value, absolute, kind);
    const allowed = this.roots.length > 1 ? ` or an allowed root (${this.roots.slice(1).join(', ')})` : '';
    return {
      ok: false,
      message: `${kind.name} file "${value}" is outside the spec's folder ${this.roots[0]}${allowed}; move it there, or allow its folder with --allow-input-root ${path.dirname(resolved)}`,
    };
  }
}

/** A file of ours (the default font), not the spec's: checked and hashed, wherever it is. */
export function bundledFile(absolute: string, kind: FileKind): LocalFile {
  return check(absolute, absolute, kind);
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

function check(value: string, absolute: string, kind: FileKind): LocalFile {
  let bytes: Buffer;
  try {
    if (!statSync(absolute).isFile())
      return { ok: false, message: `"${value}" is a folder, not ${kind.noun}` };
    bytes = readFileSync(absolute);
  } catch {
    return {
      ok: false,
      message: `${kind.name} file "${value}" not found (looked for ${absolute}); ${kind.takes}`,
    };
  }
  if (!kind.signatures.some((signature) => signature(bytes))) {
    return { ok: false, message: `"${value}" is not ${kind.formats} (checked its first bytes)` };
  }
  return { ok: true, path: absolute, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Job keys are content hashes (ARCHITECTURE.md, decision 2): the same model, resolved input,
 * variant and parent always give the same key, so re-running an unchanged spec creates nothing,
 * and editing one prompt changes only the keys of the jobs it touches and their descendants.
 */
import { createHash } from 'node:crypto';
import { Asset, type Operation } from '../derive/operations.ts';
import { LOCAL_FILE_PREFIX } from './types.ts';

export interface JobKeyParts {
  readonly model: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly variant: number;
  readonly parent: string | null;
  /** sha256 of each local file named in `input`, by absolute path. */
  readonly files?: Readonly<Record<string, string>>;
}

/** 32 hex characters (128 bits) of sha256 over canonical JSON of the parts. */
export function jobKey(parts: JobKeyParts): string {
  const input = parts.files ? withFileHashes(parts.input, parts.files) : parts.input;
  return hashOf({ model: parts.model, input, variant: parts.variant, parent: parts.parent });
}

export interface DerivativeKeyParts {
  readonly parent: string;
  readonly operations: readonly Operation[];
  /** The versions of the tools that make it (sharp's, ffmpeg's): another version may make other bytes. */
  readonly tools: string;
}

/**
 * A derivative's key, like a job's: remade when its parent is, when an operation changes (a row's
 * headline in its text) or a file it reads changes content, and when the tools change; a file
 * moved with the project keeps it, since an asset counts by its sha256, not its path.
 */
export function derivativeKey(parts: DerivativeKeyParts): string {
  const operations = parts.operations.map((operation) =>
    Object.fromEntries(
      Object.entries(operation).map(([name, value]) => {
        const asset = Asset.safeParse(value);
        return [name, asset.success ? asset.data.sha256 : value];
      }),
    ),
  );
  return hashOf({ parent: parts.parent, operations, tools: parts.tools });
}

/** 32 hex characters (128 bits) of sha256 over canonical JSON. */
function hashOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

/** A local file counts by its content, not its path: moving the project keeps every key. */
function withFileHashes(
  input: Readonly<Record<string, unknown>>,
  files: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    const file =
      typeof value === 'string' && value.startsWith(LOCAL_FILE_PREFIX)
        ? files[value.slice(LOCAL_FILE_PREFIX.length)]
        : undefined;
    result[name] = file === undefined ? value : `${LOCAL_FILE_PREFIX}sha256:${file}`;
  }
  return result;
}

/** JSON with object keys sorted at every level, so key order in the spec never changes a key. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/**
 * Job keys are content hashes (ARCHITECTURE.md, decision 2): the same model, resolved input,
 * variant and parent always give the same key, so re-running an unchanged spec creates nothing,
 * and editing one prompt changes only the keys of the jobs it touches and their descendants.
 */
import { createHash } from 'node:crypto';
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
  const canonical = canonicalJson({
    model: parts.model,
    input,
    variant: parts.variant,
    parent: parts.parent,
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
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

/**
 * Job names: the step id, then the matrix values (the parent's first, for a chained job), then
 * the variant when the step repeats. They become file names under output.dir, so they are made of
 * [a-z0-9._-] only, never start with a dot and never contain a separator: no name can leave
 * the output folder. A clash (two values that slug alike) is settled with the job key's start.
 */
import type { Scalar } from './schema.ts';

const MAX_NAME = 150;

export function slug(value: Scalar): string {
  return String(value)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
}

/** The parts a job contributes to its own and its children's names. */
export function nameParts(
  parentParts: readonly string[],
  values: readonly Scalar[],
  variant: number | null,
): string[] {
  const parts = [...parentParts];
  for (const value of values) {
    const part = slug(value);
    if (part) parts.push(part);
  }
  if (variant !== null) parts.push(`v${variant}`);
  return parts;
}

export class JobNames {
  private readonly used = new Set<string>();

  /** A unique name for the job; `key` settles clashes and over-long names. */
  claim(step: string, parts: readonly string[], key: string): string {
    let name = [slug(step), ...parts].join('-');
    if (name.length > MAX_NAME)
      name = `${name.slice(0, MAX_NAME - 9).replace(/[-.]+$/, '')}-${key.slice(0, 8)}`;
    if (this.used.has(name)) name = `${name}-${key.slice(0, 8)}`;
    this.used.add(name);
    return name;
  }
}

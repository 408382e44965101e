/**
 * Keys are relative paths, `/`-separated. Parts of them come from a plan or a manifest anyone with
 * the folder or bucket can edit (step ids, job names), so every key is checked before either
 * backend touches it: no absolute path, no `..` or `.` segment, no empty segment, no backslash.
 */
export class BadKey extends Error {
  readonly key: string;

  constructor(key: string) {
    super(`${JSON.stringify(key)} is not a key inside the store (a relative path without "..")`);
    this.key = key;

    this.name = 'BadKey';
  }
}

export function checkKey(key: string): string {
  const segments = key.split('/');
  const bad =
    key.length === 0 ||
    key.includes('\\') ||
    key.includes('\0') ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad) throw new BadKey(key);
  return key;
}

/** A listing prefix: empty (everything) or a checked key ending with `/`. */
export function checkPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  if (!prefix.endsWith('/')) throw new BadKey(prefix);
  checkKey(prefix.slice(0, -1));
  return prefix;
}

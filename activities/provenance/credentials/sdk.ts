/**
 * The CAI's C2PA SDK (@contentauth/c2pa-node), loaded on first use: its native library is tens of
 * megabytes, which a command that never signs nor reads a manifest (validate, estimate, status)
 * should never map.
 */
export type C2pa = typeof import('@contentauth/c2pa-node');

let loaded: Promise<C2pa> | undefined;

export function c2pa(): Promise<C2pa> {
  loaded ??= import('@contentauth/c2pa-node');
  return loaded;
}

/** The MIME type C2PA knows a delivered file by, from its name; null for a type mediaflow does not sign. */
export function signableType(file: string): string | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase();
  return extension ? (SIGNABLE[extension] ?? null) : null;
}

const SIGNABLE: Readonly<Record<string, string>> = {
  png: 'image/png',
  mp4: 'video/mp4',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

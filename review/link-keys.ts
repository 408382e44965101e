/**
 * Where a campaign's review-link secret and revocations live: one JSON file per campaign in the
 * stack's state (the CLI names it: cli/commands/review-link.ts), created 0600 in a 0700 folder,
 * replaced whole by rename so a reader never sees half of it. The server reads it for every
 * request, so a link revoked from another terminal stops working at once, without a restart.
 * The links issued are listed by id, name, role and expiry (never their tokens) so
 * `review-link --list` can say which to revoke.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { LinkClaims, type LinkKeys, newLinkId, signLink } from './links.ts';

const KeyFile = z.object({
  secret: z.string().min(43),
  issued: z.array(LinkClaims.extend({ issuedAt: z.number().int() })),
  revoked: z.array(z.string()),
});
type KeyFile = z.infer<typeof KeyFile>;

export type IssuedLink = KeyFile['issued'][number];

async function readKeyFile(path: string): Promise<KeyFile | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  // A file someone damaged is an error to show, never a reason to mint a new secret silently.
  return KeyFile.parse(JSON.parse(text));
}

async function writeKeyFile(path: string, file: KeyFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify(file, null, 1)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

async function loadOrCreate(path: string): Promise<KeyFile> {
  const known = await readKeyFile(path);
  if (known) return known;
  const created: KeyFile = { secret: randomBytes(32).toString('base64url'), issued: [], revoked: [] };
  await writeKeyFile(path, created);
  return created;
}

/** The secret and revocations, read now (the file is created with a new secret when missing). */
export async function readLinkKeys(path: string): Promise<LinkKeys> {
  const file = await loadOrCreate(path);
  return { secret: Buffer.from(file.secret, 'base64url'), revoked: new Set(file.revoked) };
}

/** Signs a new link and lists it; returns its token and claims. */
export async function issueLink(
  path: string,
  link: Omit<LinkClaims, 'id'>,
  now: number = Date.now(),
): Promise<{ token: string; claims: LinkClaims }> {
  const file = await loadOrCreate(path);
  const claims = LinkClaims.parse({ ...link, id: newLinkId() });
  // Expired entries are dropped as others are added: the list stays the links that still open.
  const issued = file.issued.filter((known) => known.exp > now);
  await writeKeyFile(path, { ...file, issued: [...issued, { ...claims, issuedAt: now }] });
  return { token: signLink(Buffer.from(file.secret, 'base64url'), claims), claims };
}

/** Revokes a link by id; false when no link of this campaign's file had it. */
export async function revokeLink(path: string, id: string): Promise<boolean> {
  const file = await loadOrCreate(path);
  if (file.revoked.includes(id)) return true;
  if (!file.issued.some((known) => known.id === id)) return false;
  await writeKeyFile(path, { ...file, revoked: [...file.revoked, id] });
  return true;
}

export async function listLinks(path: string): Promise<{ issued: IssuedLink[]; revoked: Set<string> }> {
  const file = await loadOrCreate(path);
  return { issued: file.issued, revoked: new Set(file.revoked) };
}

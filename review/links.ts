/**
 * Per-person review links (docs/review.md, "Sharing"): a token that names a campaign, a person, a
 * role and an expiry, signed with HMAC-SHA256 under a secret only the review server's host keeps.
 * node:crypto does it in a few lines, so no JWT library is needed: the token is never read by
 * anyone but the server that signed it. Verification answers a claim or null, never why: a
 * forged, expired or revoked link all look alike to whoever holds it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** `view` sees the sheet; `decide` may also approve, reject and regenerate. */
export const LinkRole = z.enum(['view', 'decide']);
export type LinkRole = z.infer<typeof LinkRole>;

/**
 * The `campaign` claim of an inbox link (docs/review.md, "The inbox"): it opens the inbox and every
 * campaign's sheet of the stack. No campaign can bear the name: campaign names start with a letter
 * or digit (plan/schema.ts, SAFE_NAME), so a campaign's link never passes for an inbox link.
 */
export const INBOX_SCOPE = '_inbox';

export const LinkClaims = z.object({
  /** Names the link for revocation; random, so revoking one link leaves the others working. */
  id: z.string().regex(/^[0-9a-f]{16}$/),
  campaign: z.string().min(1).max(64),
  /** Who decides through it: recorded as the decision's `by`. */
  name: z.string().min(1).max(200),
  role: LinkRole,
  /** Expiry, milliseconds since the epoch. */
  exp: z.number().int().positive(),
});
export type LinkClaims = z.infer<typeof LinkClaims>;

/** What verification needs: the secret and the ids revoked, read fresh for each request. */
export interface LinkKeys {
  readonly secret: Buffer;
  readonly revoked: ReadonlySet<string>;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30m", "48h", "7d" in milliseconds; null for anything else. */
export function parseDuration(text: string): number | null {
  const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(text.trim());
  return match ? Number(match[1]) * (UNITS[match[2]!] ?? 0) : null;
}

export function newLinkId(): string {
  return randomBytes(8).toString('hex');
}

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(`mediaflow-review-link.v1.${payload}`).digest();
}

/** `<payload>.<signature>`, both base64url: safe in a URL path segment. */
export function signLink(secret: Buffer, claims: LinkClaims): string {
  const payload = Buffer.from(JSON.stringify(LinkClaims.parse(claims))).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The link's claims when it is ours, for `campaign`, unexpired and not revoked; else null. */
export function verifyLink(
  token: string,
  keys: LinkKeys,
  campaign: string,
  now: number = Date.now(),
): LinkClaims | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || token.length > 2048) return null;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(keys.secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const claims = LinkClaims.safeParse(json);
  if (!claims.success) return null;
  const { data } = claims;
  if (data.campaign !== campaign || data.exp <= now || keys.revoked.has(data.id)) return null;
  return data;
}

/**
 * Who may ask the review server what (docs/review.md, "Security"), checked before any route runs:
 *
 * - the Host header must be one the server answers to (its own address, or the public URL a
 *   reverse proxy serves it under), so a DNS-rebinding page cannot reach it under its own name;
 * - every path starts with a signed link (links.ts): forged, expired, revoked or missing is 401
 *   with an empty body, whatever the path;
 * - a request that changes state must come from the page itself (Origin, when sent, names the
 *   same host; Sec-Fetch-Site, when sent, says same-origin) and its link must have the `decide` role.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type LinkClaims, type LinkKeys, verifyLink } from './links.ts';
import { linkInCookie, SHEET_PREFIX } from './sheet-url.ts';

export interface Access {
  readonly campaign: string;
  /** Read for each request, so a revocation counts at once. */
  readonly keys: () => Promise<LinkKeys>;
}

declare module 'fastify' {
  interface FastifyRequest {
    reviewer?: LinkClaims;
    /** The link that let the request in (the path's, or on `/sheet/` the cookie's). */
    reviewerToken?: string;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Origin's host (`https://review.example.com` → `review.example.com`); null when unparsable. */
function hostOfOrigin(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether a state-changing request comes from a page this server served. */
export function sameOrigin(headers: FastifyRequest['headers'], host: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = headers.origin;
  // A browser sends Origin with every POST; a script (curl) sends neither header and holds the link.
  if (origin !== undefined && hostOfOrigin(String(origin)) !== host) return false;
  return true;
}

/** The onRequest hook: answers (and ends) the request it refuses. */
export function guard(access: Access, allowedHosts: () => ReadonlySet<string>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const host = String(request.headers.host ?? '').toLowerCase();
    if (!allowedHosts().has(host)) {
      await reply.code(421).send();
      return;
    }
    const path = request.url.split('?')[0] ?? '';
    // The secret-free sheet address (sheet-url.ts) is let in by the cookie, for GET only.
    const token = path.startsWith(SHEET_PREFIX)
      ? SAFE_METHODS.has(request.method)
        ? linkInCookie(request.headers.cookie)
        : undefined
      : /^\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)(?:\/|$)/.exec(path)?.[1];
    const claims = token ? verifyLink(token, await access.keys(), access.campaign) : null;
    if (!claims) {
      await reply.code(401).header('cache-control', 'no-store').send();
      return;
    }
    if (!SAFE_METHODS.has(request.method)) {
      if (!sameOrigin(request.headers, host)) {
        await reply.code(403).send({ message: 'cross-site request refused' });
        return;
      }
      if (claims.role !== 'decide') {
        await reply.code(403).send({ message: `${claims.name}’s link may view, not decide` });
        return;
      }
    }
    request.reviewer = claims;
    request.reviewerToken = token;
  };
}

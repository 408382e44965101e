/**
 * A campaign's sheet by an address that holds no secret, for messages that travel (a webhook's
 * "review awaiting" payload, a Slack post): `<public base>/sheet/<campaign>/`. It opens the sheet
 * for whoever has opened their own link in that browser before (the page leaves the link in a
 * cookie scoped to `/sheet/`, HttpOnly, SameSite=Lax, so a click from Slack carries it and no
 * other path ever sees it); anyone else gets 401, as with no link.
 */
export const SHEET_COOKIE = 'mediaflow_review';
export const SHEET_PREFIX = '/sheet/';

export function sheetUrl(publicBase: string, campaign: string): string {
  const base = publicBase.endsWith('/') ? publicBase : `${publicBase}/`;
  return new URL(`sheet/${encodeURIComponent(campaign)}/`, base).toString();
}

/** The link a `/sheet/` request's cookie holds, if any. */
export function linkInCookie(cookie: string | undefined): string | undefined {
  return cookie
    ?.split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${SHEET_COOKIE}=`))
    ?.slice(SHEET_COOKIE.length + 1);
}

/** The Set-Cookie header a page answer carries, until its link expires. */
export function sheetCookie(token: string, exp: number, now: number = Date.now()): string {
  const maxAge = Math.max(0, Math.floor((exp - now) / 1000));
  return `${SHEET_COOKIE}=${token}; Path=${SHEET_PREFIX}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax`;
}

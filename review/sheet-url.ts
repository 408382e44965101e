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

/** A path segment shaped like a review link (links.ts: `<payload>.<signature>`, base64url). */
const LINK_SEGMENT = /^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}$/;

/**
 * The sheet's address a "review awaiting" notice carries (docs/notifications.md), from the
 * review server's public URL (`notify.review_url`, MEDIAFLOW_REVIEW_URL: the same address
 * `--public-url` and `review-link --url` take): `<base>/sheet/<campaign>/`. A value with
 * `{campaign}` in it is taken as a whole address, the campaign filled in. Throws when the value
 * holds a review link: pasted by mistake, it would send a person's key to every receiver.
 */
export function noticeSheetUrl(reviewUrl: string, campaign: string): string {
  const url = new URL(reviewUrl);
  if (url.pathname.split('/').some((segment) => LINK_SEGMENT.test(segment)) || url.search || url.hash)
    throw new Error(
      'the review URL holds a review link or a query: give the review server’s public address (e.g. https://review.example.com), never a link',
    );
  return reviewUrl.includes('{campaign}')
    ? reviewUrl.replaceAll('{campaign}', encodeURIComponent(campaign))
    : sheetUrl(reviewUrl, campaign);
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

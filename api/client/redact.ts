/**
 * The one redaction of the API key from text the service sends back. A hostile or careless service
 * may echo the key in any error field, in a prediction's error text, base64'd inside a header dump
 * or percent-encoded inside a URL; whatever leaves the client can reach an activity failure, the
 * Temporal history, a record, a log or the terminal, so every string from the service goes through
 * here first (transport.ts, errors.ts, prediction-stream.ts).
 *
 * Forms matched: the key itself and its URL-encoded form in any letter case (a service may upper-
 * or lower-case a token; percent escapes are case-insensitive), and base64 (standard and url-safe,
 * with and without padding, at each of the three byte alignments, so the key is found inside a
 * longer encoded text such as `Basic base64(user:key)` too). Base64 is matched exactly: changing
 * its case changes the bytes it stands for.
 */

export const REDACTED = '[redacted]';

/** Below this a "key" matches too much ordinary text to be replaced safely (tests use longer). */
const MIN_SECRET_LENGTH = 8;

export type Redactor = (text: string) => string;

/** A character of standard or url-safe base64. */
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/** A redactor for `secret`; the identity when there is no secret to hide. */
export function secretRedactor(secret: string | undefined): Redactor {
  if (!secret || secret.length < MIN_SECRET_LENGTH) return (text) => text;
  const pattern = new RegExp(secretForms(secret).map(escapeRegExp).join('|'), 'g');
  const plain = new Set([secret, encodeURIComponent(secret)].map((form) => form.toLowerCase()));
  // One pass, longest form first; case-insensitive only for the plain and URL-encoded forms.
  const insensitive = new RegExp([...plain].map(escapeRegExp).join('|'), 'gi');
  return (text) => redactRuns(text, pattern).replace(insensitive, REDACTED);
}

/**
 * Replaces each match of a base64 form together with the whole encoded run around it: the run's
 * edges would still hold a byte of the key. Widened by hand, not by the regex, since a leading
 * `[…]*` would make the search quadratic on a long base64 text (a data: URI echoed back).
 */
function redactRuns(text: string, pattern: RegExp): string {
  let out = '';
  let done = 0;
  for (const match of text.matchAll(pattern)) {
    let start = match.index;
    let end = start + match[0].length;
    if (start < done) continue; // inside a run already replaced
    while (start > done && BASE64_CHAR.test(text[start - 1]!)) start -= 1;
    while (end < text.length && BASE64_CHAR.test(text[end]!)) end += 1;
    while (end < text.length && text[end] === '=') end += 1;
    out += text.slice(done, start) + REDACTED;
    done = end;
  }
  return out + text.slice(done);
}

/**
 * Every string inside a parsed JSON value redacted, keys of objects included; the shape kept. A
 * part with nothing to redact is the same object, not a copy: almost every answer is such, and a
 * worker reading hundreds a second spent a tenth of its garbage collection on the copies.
 */
export function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    const items = value.map((item) => redactDeep(item, redact));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    let changed = false;
    const redacted = entries.map(([key, item]) => {
      const pair = [redact(key), redactDeep(item, redact)] as const;
      changed ||= pair[0] !== key || pair[1] !== item;
      return pair;
    });
    return changed ? Object.fromEntries(redacted) : value;
  }
  return value;
}

/** The base64 forms of `secret`, longest first (full encodings before the aligned cores). */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const full = bytes.toString('base64');
  const forms = new Set([full, full.replace(/=+$/, '')]);
  for (let shift = 0; shift < 3; shift += 1) forms.add(alignedCore(bytes, shift));
  for (const form of [...forms]) forms.add(form.replace(/\+/g, '-').replace(/\//g, '_'));
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * The base64 characters that depend only on `bytes` when they sit `shift` bytes into a longer text:
 * the first group mixes in the bytes before (skipped when shift > 0), the last partial group the
 * bytes after (dropped).
 */
function alignedCore(bytes: Buffer, shift: number): string {
  const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
  const start = shift === 0 ? 0 : 4;
  const end = Math.floor((shift + bytes.length) / 3) * 4;
  return encoded.slice(start, end);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

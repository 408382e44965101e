/**
 * The encodings of an API key a leak could take, written independently of api/client/redact.ts so
 * tests check the redaction against a second opinion, and a finder that searches any text (a
 * history's JSON, a database file read as latin1) for each of them.
 */

export function keyForms(key: string): Record<string, string> {
  const base64 = Buffer.from(key, 'utf8').toString('base64');
  const url = base64.replace(/\+/g, '-').replace(/\//g, '_');
  const encoded = encodeURIComponent(key);
  return {
    plain: key,
    upper: key.toUpperCase(),
    lower: key.toLowerCase(),
    base64,
    'base64 unpadded': base64.replace(/=+$/, ''),
    base64url: url,
    'base64url unpadded': url.replace(/=+$/, ''),
    'url-encoded': encoded,
    'url-encoded, lower-case escapes': encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    // The key inside a longer encoded text (an echoed Authorization: Basic header).
    'base64 of user:key': Buffer.from(`user:${key}`).toString('base64'),
  };
}

/** The names of the forms of `key` found in `text`; the plain and URL-encoded ones in any case. */
export function keyFormsIn(text: string, key: string): string[] {
  const lower = text.toLowerCase();
  return Object.entries(keyForms(key))
    .filter(([name, form]) =>
      name.startsWith('base64') ? text.includes(form) : lower.includes(form.toLowerCase()),
    )
    .map(([name]) => name);
}

import { describe, expect, it } from 'vitest';
import { REDACTED, redactDeep, secretRedactor } from '../../api/client/redact.ts';
import { keyForms, keyFormsIn } from '../helpers/key-forms.ts';

// Three lengths (mod 3) so every base64 padding and alignment is met; URL-special characters so
// the URL-encoded form differs from the plain one.
const KEYS = ['sk_live_Abc123+/XyZ~', 'mf-Key/With+Plus=Sign', 'sk_test_SECRET_do_not_leak_42x'];

describe.each(KEYS)('redacting the key %s', (key) => {
  const redact = secretRedactor(key);
  const forms = Object.entries(keyForms(key));

  it.each(forms)('%s is hidden, alone and inside text', (_name, form) => {
    expect(redact(form)).toContain(REDACTED);
    for (const text of [form, `key ${form} is invalid`, `"${form}","${form}"`, `a=${form}&b=1`]) {
      expect(keyFormsIn(redact(text), key)).toEqual([]);
    }
  });

  it('the key inside base64 at each byte offset is hidden', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'Bearer ']) {
      const encoded = Buffer.from(`${prefix}${key}!`).toString('base64');
      const redacted = redact(encoded);
      expect(redacted).toContain(REDACTED);
      expect(redacted).not.toContain(encoded);
    }
  });

  it('text without the key passes unchanged', () => {
    for (const text of ['', 'model not found', 'sk_live_', key.slice(0, 6), 'aspect_ratio: 16:9']) {
      expect(redact(text)).toBe(text);
    }
  });

  it('every string of a JSON value, object keys included, keeping the shape', () => {
    const value = {
      error: { code: key.toUpperCase(), allowed: ['a', encodeURIComponent(key)], param: 'x' },
      [key]: 3,
      n: null,
    };
    const redacted = redactDeep(value, redact) as Record<string, unknown>;
    expect(keyFormsIn(JSON.stringify(redacted), key)).toEqual([]);
    expect(redacted).toMatchObject({ error: { allowed: ['a', REDACTED], param: 'x' }, n: null });
    expect(redacted[REDACTED]).toBe(3);
  });
});

describe('an answer with nothing to hide', () => {
  it('is the same value, not a copy, and a part that hides something is copied alone', () => {
    const redact = secretRedactor(KEYS[0]);
    const clean = { id: 'p1', outputs: ['https://cdn/x.png'], error: null, metrics: { ms: 3 } };
    expect(redactDeep(clean, redact)).toBe(clean);
    const echoed = { ...clean, error: { message: `bad key ${KEYS[0]}` } };
    const redacted = redactDeep(echoed, redact) as typeof echoed;
    expect(redacted).not.toBe(echoed);
    expect(redacted.error.message).toBe(`bad key ${REDACTED}`);
    expect(redacted.metrics).toBe(clean.metrics);
  });
});

describe('no key, or one too short to match safely', () => {
  it.each([undefined, '', 'abc'])('%j leaves text alone', (key) => {
    expect(secretRedactor(key)('abc ABC YWJj')).toBe('abc ABC YWJj');
  });
});

describe('an encoded text holding the key', () => {
  it('goes whole, so its edges keep no byte of the key', () => {
    const key = 'sk_live_Abc123+/XyZ~';
    const header = Buffer.from(`user:${key}`).toString('base64');
    expect(secretRedactor(key)(`Authorization: Basic ${header}.`)).toBe(`Authorization: Basic ${REDACTED}.`);
  });
});

describe('a long text', () => {
  it('is redacted in one pass: a megabyte of base64 around the key', () => {
    const key = 'sk_live_Abc123+/XyZ~';
    const big = Buffer.alloc(1 << 20, 7).toString('base64');
    const text = `${big} ${Buffer.from(key).toString('base64')} ${big}`;
    const redacted = secretRedactor(key)(text);
    expect(redacted).toBe(`${big} ${REDACTED} ${big}`);
  });
});

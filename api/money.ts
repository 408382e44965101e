/**
 * Money is exact: integer micro-dollars (1 USD = 1,000,000 micros) in a plain number.
 * Safe integers reach 9e15 micros (9 billion dollars), far beyond any campaign, and unlike
 * bigint they survive JSON, so they travel through Temporal payloads unchanged.
 * The service reports amounts as decimal strings (`credits_used: "0.12"`); one credit is one
 * dollar (see docs/service-assumptions.md).
 */
export type Micros = number;

export const MICROS_PER_USD = 1_000_000;

const DECIMAL = /^(-)?(\d+)(?:\.(\d{1,6}))?$/;

/** Parses "0.12", "40", 10.2 (a YAML number) into micro-dollars, without float arithmetic. */
export function parseUsd(value: string | number): Micros {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) {
    throw new RangeError(`not a decimal amount with at most 6 decimal places: ${JSON.stringify(value)}`);
  }
  const [, sign, whole, fraction = ''] = match;
  const micros = Number(whole) * MICROS_PER_USD + Number(fraction.padEnd(6, '0'));
  if (!Number.isSafeInteger(micros)) throw new RangeError(`amount out of range: ${text}`);
  return sign ? -micros : micros;
}

/** Like parseUsd but returns null instead of throwing, for tolerant parsing of service replies. */
export function tryParseUsd(value: unknown): Micros | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  try {
    return parseUsd(value);
  } catch {
    return null;
  }
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite amount: ${value}`);
  // toString gives the shortest round-trip form ("10.2", not 10.199999…); exponent forms are refused.
  const text = String(value);
  if (/e/i.test(text)) throw new RangeError(`amount out of range: ${text}`);
  return text;
}

/** Formats micros as a decimal string with at least two decimals: 10200000 → "10.20", 1500 → "0.0015". */
export function formatUsd(micros: Micros): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const fraction = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${sign}${whole}.${fraction}`;
}

/** "$10.20" for people. */
export function formatDollars(micros: Micros): string {
  return micros < 0 ? `-$${formatUsd(-micros)}` : `$${formatUsd(micros)}`;
}

export function usd(amount: string): Micros {
  return parseUsd(amount);
}

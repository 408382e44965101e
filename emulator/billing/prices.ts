/**
 * Prices the emulator charges: the catalogue's part 8.3 rules, plus a rule for V5, whose rule the
 * spec does not show (the catalogue keeps it unknown on purpose; the emulator has to charge
 * something). Our V5 rule, documented in docs/service-assumptions.md: per second of video,
 * 0.04 at 512p, 0.07 at 768p, 0.12 at 1080p (defaults 6 s at 768p: 0.42).
 */
import { MODELS, type ModelLabel } from '../../api/catalogue/index.ts';
import { type Micros, usd } from '../../api/money.ts';

const V5_RATES: Readonly<Record<string, Micros>> = {
  '512p': usd('0.04'),
  '768p': usd('0.07'),
  '1080p': usd('0.12'),
};

/** Price of a validated input in micro-dollars. */
export function priceOf(label: ModelLabel, input: Readonly<Record<string, unknown>>): Micros {
  const definition = MODELS[label];
  const published = definition.price(input);
  if (published !== null) return published;
  const resolution = String(input.resolution ?? definition.defaults.resolution);
  const seconds = Number(input.duration ?? definition.defaults.duration);
  return V5_RATES[resolution]! * seconds;
}

/** The human pricing text of GET /v1/models. */
export const PRICING_TEXT: Readonly<Record<ModelLabel, string>> = {
  V1: '$0.05 per second at 480p, $0.09 at 720p, $0.23 at 1080p',
  V2: '$0.22 per second with audio, $0.15 without (durations 4, 6, 8)',
  V3: '$0.15 per second (durations 4, 8, 12)',
  V4: '$0.13 per second in pro mode, $0.05 in standard mode',
  V5: '$0.04 per second at 512p, $0.07 at 768p, $0.12 at 1080p (emulator rule)',
  V6: '$0.60 per generation',
  I1: '$0.12 per image',
  I2: '$0.05 per image',
  I3: '$0.25 per image at 1K or 2K, $0.45 at 4K (always 1K/2K here)',
  I4: '$0.03 per image',
  I5: '$0.06 per image',
};

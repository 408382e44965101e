/**
 * The colour a prompt asks for: the first colour word in it ("a red barn", "navy suit") tints
 * the emulator's picture, so a demo of a colour matrix shows the colours it names. A prompt
 * without one gets a hue from its hash.
 */
export type Rgb = readonly [number, number, number];

const NAMED: Readonly<Record<string, Rgb>> = {
  red: [200, 30, 40],
  crimson: [170, 20, 50],
  maroon: [110, 20, 30],
  orange: [235, 120, 20],
  coral: [240, 110, 90],
  yellow: [235, 205, 30],
  gold: [210, 165, 30],
  beige: [220, 200, 160],
  brown: [120, 75, 40],
  olive: [110, 120, 40],
  lime: [140, 220, 40],
  green: [40, 150, 60],
  teal: [20, 130, 130],
  turquoise: [50, 200, 190],
  cyan: [40, 200, 220],
  blue: [40, 90, 210],
  navy: [20, 30, 100],
  purple: [110, 40, 150],
  violet: [140, 80, 200],
  magenta: [200, 40, 160],
  pink: [240, 140, 180],
  black: [25, 25, 28],
  white: [235, 235, 232],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  silver: [180, 185, 190],
};

/** The first colour word of the prompt, or undefined. */
export function colourWordOf(prompt: string): Rgb | undefined {
  for (const word of prompt.toLowerCase().split(/[^a-z]+/)) {
    const colour = NAMED[word];
    if (colour) return colour;
  }
  return undefined;
}

/** A saturated colour of hue `hue` (0–359), for prompts that name none. */
export function hueColour(hue: number, lightness = 0.5): Rgb {
  const c = (1 - Math.abs(2 * lightness - 1)) * 0.7;
  const x = c * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = lightness - c / 2;
  const [r, g, b] =
    hue < 60
      ? [c, x, 0]
      : hue < 120
        ? [x, c, 0]
        : hue < 180
          ? [0, c, x]
          : hue < 240
            ? [0, x, c]
            : hue < 300
              ? [x, 0, c]
              : [c, 0, x];
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

/** `a` moved a fraction `t` of the way to `b`. */
export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [0, 1, 2].map((i) => Math.round(a[i]! + (b[i]! - a[i]!) * t)) as unknown as Rgb;
}

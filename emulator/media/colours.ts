/**
 * The colours a prompt asks for: every colour word in it ("a mint sneaker with lemon laces",
 * "navy suit", "hot pink") in the order written, so a demo of a colour sweep shows the colours
 * it names. The words are the CSS colour names (the `color-name` package) and, since a catalogue
 * speaks of "mint" and "charcoal" rather than "mediumaquamarine", common product colours; two
 * words written apart that make a CSS name ("sky blue", "forest green") count as that colour.
 * A prompt without any gets a hue from its hash.
 */
import cssColours from 'color-name';

export type Rgb = readonly [number, number, number];

/**
 * Product and fashion colour words CSS lacks. Typed here because no maintained package lists
 * them apart from names of paint shades (tens of thousands, most of them ordinary nouns).
 */
const PRODUCT_COLOURS: Readonly<Record<string, Rgb>> = {
  mint: [152, 230, 190],
  lemon: [250, 235, 70],
  sage: [160, 178, 140],
  charcoal: [54, 69, 79],
  cream: [255, 250, 215],
  sand: [214, 190, 150],
  stone: [150, 145, 135],
  blush: [240, 180, 180],
  rose: [230, 110, 140],
  burgundy: [128, 0, 32],
  wine: [114, 47, 55],
  mustard: [225, 173, 1],
  mauve: [190, 150, 180],
  rust: [183, 65, 14],
  terracotta: [205, 95, 65],
  emerald: [20, 160, 100],
  cobalt: [0, 71, 171],
  denim: [21, 96, 189],
  ochre: [204, 119, 34],
  lilac: [200, 162, 200],
  ruby: [190, 20, 60],
  sapphire: [15, 82, 186],
  jade: [0, 168, 107],
  amber: [255, 191, 0],
  bronze: [205, 127, 50],
  copper: [184, 115, 51],
  champagne: [247, 231, 206],
  taupe: [72, 60, 50],
  graphite: [65, 66, 76],
  camel: [193, 154, 107],
  cherry: [210, 4, 45],
  aubergine: [97, 64, 81],
  mocha: [150, 120, 90],
  pastel: [200, 220, 240],
};

const NAMED: ReadonlyMap<string, Rgb> = new Map<string, Rgb>([
  ...Object.entries(cssColours).map(([name, rgb]): [string, Rgb] => [name, [rgb[0], rgb[1], rgb[2]]]),
  ...Object.entries(PRODUCT_COLOURS),
]);

/** Every colour the prompt names, first to last (a two-word name counts once). */
export function coloursOf(prompt: string): Rgb[] {
  const words = prompt
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  const found: Rgb[] = [];
  for (let i = 0; i < words.length; i++) {
    const pair = i + 1 < words.length ? NAMED.get(words[i]! + words[i + 1]!) : undefined;
    const colour = pair ?? NAMED.get(words[i]!);
    if (pair) i++;
    if (colour) found.push(colour);
  }
  return found;
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

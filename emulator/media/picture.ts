/**
 * The emulator's still: a small scene composed from the prompt and a seed, with the prompt's
 * words written across the bottom. The prompt picks the tint and the words: the sky and ground
 * take the first colour it names (else a hue from its hash), the blocks its second (else accents
 * around the first), so a sweep over colours reads at a glance on a contact sheet; the seed (the prediction: a retake is a new one) places the sun and
 * the blocks and is printed top left, so a retake is visibly a different picture of the same
 * prompt. Kept as palette indices (16 colours): the PNG is a 4-bit palette image and the video
 * encoder converts each colour once.
 *
 * Edges sit on a 16-pixel grid where the design allows (bands, blocks, banner, text lines):
 * the video encoder (h264.ts) codes a flat 16×16 macroblock in a few bits and any other one raw.
 */
import { createHash } from 'node:crypto';
import { seededRandom } from '../random.ts';
import { coloursOf, hueColour, mix, type Rgb } from './colours.ts';
import type { Size } from './dimensions.ts';
import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphRow } from './font.ts';

export interface Picture extends Size {
  /** One palette index per pixel, row by row. */
  readonly pixels: Uint8Array;
  readonly palette: readonly Rgb[];
}

const BANDS = 6;
const BLOCK = 6; // palette indices 6..9: blocks
const SUN = 10;
const BANNER = 11;
const TEXT = 12;
const LABEL = 13;
const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const LINE = 16;

export function renderPicture(prompt: string, seed: number, size: Size): Picture {
  const { width, height } = size;
  const digest = createHash('sha256').update(prompt).digest();
  const random = seededRandom(digest.readUInt32LE(0) ^ Math.imul(seed >>> 0, 0x9e3779b1));
  const [first, second] = coloursOf(prompt);
  const palette = paletteOf(first ?? hueColour(digest.readUInt16LE(4) % 360), second, random);
  const pixels = new Uint8Array(width * height);
  const fill = (x0: number, y0: number, x1: number, y1: number, index: number) => {
    const left = Math.max(0, Math.round(x0));
    const right = Math.min(width, Math.round(x1));
    if (right <= left) return;
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(height, Math.round(y1)); y++) {
      pixels.fill(index, y * width + left, y * width + right);
    }
  };
  const grid = (v: number) => Math.round(v / 16) * 16;

  for (let band = 0; band < BANDS; band++) {
    fill(
      0,
      grid((height * band) / BANDS),
      width,
      band === BANDS - 1 ? height : grid((height * (band + 1)) / BANDS),
      band,
    );
  }
  const scale = width >= 256 ? 2 : 1;
  // Clear of the sides a thumbnail cropped to another shape cuts off (review cards crop ~5 %).
  const margin = Math.max(8, Math.round(width * 0.06));
  const columns = Math.floor((width - 2 * margin) / ((GLYPH_WIDTH + 1) * scale));
  const lines = wrap(prompt, columns, Math.max(1, Math.min(4, Math.floor(height / 3 / LINE))));
  const bannerTop = Math.floor((height - lines.length * LINE - 8) / 16) * 16;

  const radius = Math.min(width, height) * (0.08 + 0.08 * random());
  const cx = width * (0.15 + 0.7 * random());
  const cy = bannerTop * (0.2 + 0.4 * random());
  for (let y = Math.ceil(cy - radius); y <= cy + radius; y++) {
    const half = Math.sqrt(Math.max(0, radius * radius - (y - cy) ** 2));
    fill(cx - half, y, cx + half, y + 1, SUN);
  }
  const blocks = 3 + Math.floor(random() * 4);
  for (let i = 0; i < blocks; i++) {
    const w = 16 * (2 + Math.floor(random() * 5));
    const h = Math.min(16 * (3 + Math.floor(random() * 8)), grid(bannerTop * 0.6));
    const x = grid(random() * (width - w));
    fill(x, bannerTop - h, x + w, bannerTop, BLOCK + (i % 4));
  }

  fill(0, bannerTop, width, height, BANNER);
  for (const [i, line] of lines.entries()) {
    drawText(pixels, width, line, margin, bannerTop + i * LINE + 1, scale, TEXT);
  }
  // The seed, top right (review cards put their badge top left), on a box that stops short of
  // the right edge: the video's pan repeats that edge's column.
  const label = `#${seed}`;
  const boxWidth = grid(label.length * (GLYPH_WIDTH + 1) + 14);
  const boxLeft = Math.max(0, Math.floor((width - margin - boxWidth) / 16) * 16);
  fill(boxLeft, 0, boxLeft + boxWidth, 16, BANNER);
  drawText(pixels, width, label, boxLeft + 4, 4, 1, LABEL);
  return { width, height, pixels, palette };
}

/** Bands close around the base colour (their mean is nearly it), so the picture reads as that colour. */
function paletteOf(base: Rgb, second: Rgb | undefined, random: () => number): Rgb[] {
  const top = mix(base, WHITE, 0.15);
  const bottom = mix(base, BLACK, 0.15);
  const bands = Array.from({ length: BANDS }, (_, i) => mix(top, bottom, i / (BANDS - 1)));
  const accentHue = Math.floor(random() * 360);
  const blocks = Array.from({ length: 4 }, (_, i) =>
    second
      ? mix(second, i % 2 ? BLACK : WHITE, 0.1 * i)
      : mix(mix(base, hueColour((accentHue + 70 * i) % 360), 0.45), BLACK, 0.15 + 0.1 * i),
  );
  const sun = mix(base, [255, 240, 200], 0.6);
  return [...bands, ...blocks, sun, [22, 22, 26], [245, 245, 245], [255, 215, 110], BLACK, BLACK];
}

/** The prompt's words in lines of at most `columns` characters; the last line ends in "..." when cut. */
function wrap(prompt: string, columns: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of prompt.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= columns) line = next;
    else {
      if (line) lines.push(line);
      line = word.slice(0, columns);
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${kept[maxLines - 1]!.slice(0, columns - 3)}...`;
  return kept;
}

function drawText(
  pixels: Uint8Array,
  width: number,
  text: string,
  x0: number,
  y0: number,
  scale: number,
  index: number,
): void {
  const height = pixels.length / width;
  for (const [n, char] of [...text].entries()) {
    const left = x0 + n * (GLYPH_WIDTH + 1) * scale;
    if (left + GLYPH_WIDTH * scale > width) return;
    for (let row = 0; row < GLYPH_HEIGHT; row++) {
      const bits = glyphRow(char, row);
      if (bits === 0) continue;
      for (let col = 0; col < GLYPH_WIDTH; col++) {
        if (!(bits & (0x10 >> col))) continue;
        for (let dy = 0; dy < scale; dy++) {
          const y = y0 + row * scale + dy;
          if (y >= height) continue;
          const at = y * width + left + col * scale;
          pixels.fill(index, at, at + scale);
        }
      }
    }
  }
}

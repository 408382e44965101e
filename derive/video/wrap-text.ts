/**
 * Line breaks for burnt-in text: drawtext draws each line as given and never wraps, so a headline
 * wider than the frame would be cut at its edge. Widths are estimated from the font size, not
 * measured (ffmpeg lays the glyphs out itself and reports nothing back): a Latin glyph of Noto Sans
 * Bold averages a little under 0.6 em, a CJK one a full em, so the estimate errs on the wide side
 * and a line broken here fits.
 */

const LATIN_EM = 0.6;
const WIDE_EM = 1;

/** Han, kana, Hangul and full-width forms: one em wide, and a line may break between any two. */
const WIDE_RANGES =
  '\\u1100-\\u115f\\u2e80-\\ua4cf\\uac00-\\ud7a3\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uff60\\uffe0-\\uffe6';
const WIDE = new RegExp(`[${WIDE_RANGES}]`, 'u');
const AROUND_WIDE = new RegExp(`(?<=[${WIDE_RANGES}])|(?=[${WIDE_RANGES}])`, 'u');

const width = (text: string, size: number): number =>
  [...text].reduce((sum, glyph) => sum + size * (WIDE.test(glyph) ? WIDE_EM : LATIN_EM), 0);

/** Words, and each wide glyph as a word of its own (wide scripts put no spaces between words). */
const pieces = (line: string): string[] => line.split(/(\s+)/u).flatMap((part) => part.split(AROUND_WIDE));

function wrapLine(line: string, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const piece of pieces(line)) {
    if (current === '' && piece.trim() === '') continue;
    const joined = current + piece;
    if (current === '' || width(joined.trimEnd(), size) <= maxWidth) {
      current = joined;
      continue;
    }
    lines.push(current.trimEnd());
    current = piece.trimStart();
  }
  if (current.trim() !== '') lines.push(current.trimEnd());
  return lines;
}

/**
 * `text` broken into lines no wider than `maxWidth` pixels at `size` pixels a line; the lines it
 * already has are kept. A single word wider than the frame stays whole (breaking it would change
 * what it says) and is cut at the edge.
 */
export function wrapText(text: string, size: number, maxWidth: number): string[] {
  return text.split(/\r?\n/u).flatMap((line) => wrapLine(line, size, maxWidth));
}

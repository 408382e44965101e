/**
 * A 5×7 bitmap font, embedded: the emulator draws the prompt's words into its pictures so a
 * person looking at a demo or a contact sheet can tell which job made which image. A font file
 * or a canvas library would be a runtime dependency (native code for canvas) for what is a
 * placeholder picture; 45 glyphs of 7 rows fit in this table. Lowercase is drawn as uppercase,
 * an accented Latin letter as its letter ("é" as "E"); a character without a glyph (Japanese)
 * is drawn as a box, so it still takes its place in the line.
 */

/** Seven rows per glyph, each two hex digits whose low 5 bits are the pixels, MSB on the left. */
const GLYPHS: Readonly<Record<string, string>> = {
  A: '0e11111f111111',
  B: '1e11111e11111e',
  C: '0e11101010110e',
  D: '1e11111111111e',
  E: '1f10101e10101f',
  F: '1f10101e101010',
  G: '0e111017111f0f',
  H: '1111111f111111',
  I: '0e04040404040e',
  J: '0702020202120c',
  K: '11121418141211',
  L: '1010101010101f',
  M: '111b1515111111',
  N: '11111915131111',
  O: '0e11111111110e',
  P: '1e11111e101010',
  Q: '0e11111115120d',
  R: '1e11111e141211',
  S: '0f10100e01011e',
  T: '1f040404040404',
  U: '1111111111110e',
  V: '11111111110a04',
  W: '1111111515150a',
  X: '11110a040a1111',
  Y: '1111110a040404',
  Z: '1f01020408101f',
  '0': '0e11131519110e',
  '1': '040c040404040e',
  '2': '0e11010204081f',
  '3': '1f02040201110e',
  '4': '02060a121f0202',
  '5': '1f101e0101110e',
  '6': '0608101e11110e',
  '7': '1f010204080808',
  '8': '0e11110e11110e',
  '9': '0e11110f01020c',
  '.': '00000000000c0c',
  ',': '000000000c0408',
  '-': '0000001f000000',
  "'": '04040800000000',
  '!': '04040404040004',
  '?': '0e110102040004',
  ':': '000c0c000c0c00',
  '/': '00010204081000',
  '#': '0a0a1f0a1f0a0a',
  '&': '0c121408151209',
  '+': '0004041f040400',
  '(': '02040808080402',
  ')': '08040202020408',
  ' ': '00000000000000',
};
const BOX = '1f11111111111f';

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 7;

/** Row `row` (0–6) of the glyph for `char`, as 5 bits, bit 4 the leftmost pixel. */
export function glyphRow(char: string, row: number): number {
  const hex = GLYPHS[char.toUpperCase()] ?? GLYPHS[char.normalize('NFD')[0]!.toUpperCase()] ?? BOX;
  return Number.parseInt(hex.slice(2 * row, 2 * row + 2), 16);
}

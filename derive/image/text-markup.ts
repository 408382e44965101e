/**
 * The Pango markup sharp's text input takes: the value, escaped (sharp always reads its text as
 * markup, so a headline's `&` or `<` would otherwise be a syntax error or a tag), in one span that
 * names the face, the size and the colour. Pango takes a colour's alpha apart, as `fgalpha`.
 */
import type { FontFace } from './font-face.ts';

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

/** Pango's sizes are in 1024ths of a point (a pixel, at the 72 dpi the text is drawn at). */
const PANGO_SCALE = 1024;
/** Pango's alpha runs 1 (clear) to 65535 (opaque); 0 would mean "unset". */
const PANGO_OPAQUE = 65535;

export function textMarkup(value: string, face: FontFace, size: number, colour: string): string {
  const alpha = colour.length === 9 ? Number.parseInt(colour.slice(7), 16) / 255 : 1;
  const attributes = [
    `font_family="${escapeMarkup(face.family)}"`,
    `font_weight="${face.weight}"`,
    `font_style="${face.italic ? 'italic' : 'normal'}"`,
    `size="${size * PANGO_SCALE}"`,
    `foreground="${colour.slice(0, 7)}"`,
    `fgalpha="${Math.max(1, Math.round(alpha * PANGO_OPAQUE))}"`,
  ];
  return `<span ${attributes.join(' ')}>${escapeMarkup(value)}</span>`;
}

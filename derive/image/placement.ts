/**
 * Where a picture, a text or a logo sits on a frame: an anchor is a point 0, ½ or 1 of the way
 * across and down the room the margins leave, rounded the way geometry's `cropRegion` rounds a
 * focus, so a pad and a crop at the same anchor agree to the pixel.
 */
import { ANCHOR_AT, type Region, type Size } from '../geometry.ts';
import type { Anchor } from '../operations.ts';

/** Whether `item` fits on `frame` with `margin` kept free on every side. */
export function fitsWithin(frame: Size, item: Size, margin: number): boolean {
  return item.width + 2 * margin <= frame.width && item.height + 2 * margin <= frame.height;
}

/** The region `item` takes on `frame` at `anchor`, `margin` pixels in from the edges it is anchored to. */
export function place(frame: Size, item: Size, anchor: Anchor, margin: number): Region {
  const left = margin + Math.round((frame.width - item.width - 2 * margin) * ANCHOR_AT[anchor].x);
  const top = margin + Math.round((frame.height - item.height - 2 * margin) * ANCHOR_AT[anchor].y);
  return { left, top, width: item.width, height: item.height };
}

/** How text lines up under itself at an anchor: flush with the edge it is anchored to. */
export function alignment(anchor: Anchor): 'left' | 'centre' | 'right' {
  const across = ANCHOR_AT[anchor].x;
  return across === 0 ? 'left' : across === 1 ? 'right' : 'centre';
}

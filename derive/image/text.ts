/**
 * Text burnt into the frame with the operation's own font file: wrapped to the frame's width less
 * the margins, drawn smaller when it is still too tall at its size, over an optional box (with its
 * colour's alpha) and placed at its anchor. Laid over the frame by picture.ts.
 */
import sharp, { type Create, type CreateText } from 'sharp';
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { Size } from '../geometry.ts';
import type { ImageOperation } from '../operations.ts';
import { readAsset } from './asset.ts';
import { type FontFace, fontFaceOf } from './font-face.ts';
import { type Frame, type Layer, settle } from './frame.ts';
import { alignment, fitsWithin, place } from './placement.ts';
import { Recent } from './recent.ts';
import { textMarkup } from './text-markup.ts';

type Text = Extract<ImageOperation, { op: 'text' }>;

/** The box's room around the text, as a share of the text's size. */
const BOX_PADDING = 0.25;

/**
 * The layers last drawn, by the operation and the frame's size: a derive step draws the same
 * headline on every parent of a size (Pango's layout and the box were a seventh of a still's time).
 */
const drawn = new Recent<readonly Layer[]>(32);

/** The layers that draw the text on a frame of this size: its box, if any, then the text. */
export async function textLayers(frame: Size, op: Text, at: OperationAt): Promise<readonly Layer[]> {
  // The font is checked against the plan every time, drawn or not.
  const face = fontFaceOf(await readAsset(op.font, at));
  if (face === null) throw new DeriveError(at, `${op.font.path} is not a TrueType or OpenType font`);
  const key = JSON.stringify([op, frame.width, frame.height]);
  const known = drawn.get(key);
  if (known !== undefined) return known;
  const layers = await drawnLayers(frame, op, face, at);
  drawn.set(key, layers);
  return layers;
}

async function drawnLayers(frame: Size, op: Text, face: FontFace, at: OperationAt): Promise<Layer[]> {
  const padding = op.box === null ? 0 : Math.round(op.size * BOX_PADDING);
  const inset = op.margin + padding;
  const room = { width: frame.width - 2 * inset, height: frame.height - 2 * inset };
  if (room.width < 1 || room.height < 1) {
    throw new DeriveError(
      at,
      `a ${frame.width}×${frame.height} frame leaves no room for text ${inset} pixels in from its edges`,
    );
  }
  const text = await layOut(op, face, room, at);
  const boxSize = { width: text.width + 2 * padding, height: text.height + 2 * padding };
  const box = place(frame, boxSize, op.position, op.margin);
  const layers: Layer[] = [];
  if (op.box !== null) {
    const create: Create = { ...boxSize, channels: 4, background: op.box };
    layers.push({ frame: await settle(sharp({ create })), at: box });
  }
  layers.push({ frame: text, at: { left: box.left + padding, top: box.top + padding } });
  return layers;
}

/** The text at its size, wrapped to the room's width; as large as fits, and smaller, when too tall. */
async function layOut(op: Text, face: FontFace, room: Size, at: OperationAt): Promise<Frame> {
  const text: CreateText = {
    text: textMarkup(op.value, face, op.size, op.colour),
    fontfile: op.font.path,
    width: room.width,
    align: alignment(op.position),
    // Prefer breaking between words; a word longer than the line (or a script without spaces) breaks anywhere.
    wrap: 'word-char',
    rgba: true,
  };
  // At 72 dpi a point, the unit of the markup's size, is a pixel.
  const atSize = await settle(sharp({ text: { ...text, dpi: 72 } }));
  if (fitsWithin(room, atSize, 0)) return atSize;
  // Given a height instead, libvips renders at the largest resolution whose wrapped text fits both.
  const shrunk = await settle(sharp({ text: { ...text, height: room.height } }));
  if (fitsWithin(room, shrunk, 0)) return shrunk;
  throw new DeriveError(at, `the text does not fit in ${room.width}×${room.height} even when shrunk`);
}

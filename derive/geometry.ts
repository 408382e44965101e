/**
 * The frame size each operation leaves, worked out without touching a pixel: `validate` uses it to
 * refuse a derivative that cannot be made (a pad smaller than the picture, a crop down to nothing)
 * before anything is paid, and the image and video code cut exactly the regions it names, so the
 * two never disagree about a size.
 */
import type { Anchor, Operation } from './operations.ts';

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** A region of the frame, in pixels from its top-left corner. */
export interface Region extends Size {
  readonly left: number;
  readonly top: number;
}

/**
 * Clips are encoded as H.264 with 4:2:0 chroma, which needs even sides: a clip's sizes are rounded
 * down to even at every step, so what validate predicts is what ffmpeg is asked for.
 */
export type Grid = 'pixel' | 'even';

const snap = (value: number, grid: Grid): number => {
  const whole = Math.max(1, Math.round(value));
  return grid === 'even' ? Math.max(2, whole - (whole % 2)) : whole;
};

/**
 * Where an anchor puts a thing, as fractions of the room left over (0 left/top, 1 right/bottom):
 * stills (sharp) and clips (ffmpeg) place texts, logos and pads by the same table.
 */
export const ANCHOR_AT: Readonly<Record<Anchor, { readonly x: number; readonly y: number }>> = {
  'top-left': { x: 0, y: 0 },
  top: { x: 0.5, y: 0 },
  'top-right': { x: 1, y: 0 },
  left: { x: 0, y: 0.5 },
  centre: { x: 0.5, y: 0.5 },
  right: { x: 1, y: 0.5 },
  'bottom-left': { x: 0, y: 1 },
  bottom: { x: 0.5, y: 1 },
  'bottom-right': { x: 1, y: 1 },
};

/** The largest region of `ratio` (width:height) that fits in `size`, placed by `focus` (0–1 each way). */
export function cropRegion(
  size: Size,
  ratio: readonly [number, number],
  focus: { readonly x: number; readonly y: number },
  grid: Grid,
): Region {
  const [rw, rh] = ratio;
  const wider = size.width * rh > size.height * rw;
  const width = Math.min(size.width, snap(wider ? (size.height * rw) / rh : size.width, grid));
  const height = Math.min(size.height, snap(wider ? size.height : (size.width * rh) / rw, grid));
  const left = Math.round((size.width - width) * focus.x);
  const top = Math.round((size.height - height) * focus.y);
  return { left, top, width, height };
}

type Resize = Extract<Operation, { op: 'resize' }>;

/**
 * What a resize gives: one side set keeps the ratio; both set, `cover` and `pad` give exactly that
 * size (cut or letterboxed) and `contain` the largest size of the same ratio that fits inside.
 */
export function resized(size: Size, op: Resize, grid: Grid): Size {
  const byWidth = op.width === null ? null : op.width / size.width;
  const byHeight = op.height === null ? null : op.height / size.height;
  if (byWidth !== null && byHeight !== null) {
    if (op.fit !== 'contain') return { width: snap(op.width ?? 0, grid), height: snap(op.height ?? 0, grid) };
    const scale = Math.min(byWidth, byHeight);
    return { width: snap(size.width * scale, grid), height: snap(size.height * scale, grid) };
  }
  const scale = byWidth ?? byHeight ?? 1;
  return { width: snap(size.width * scale, grid), height: snap(size.height * scale, grid) };
}

/** Why an operation cannot be applied to a frame of this size, or null when it can. */
export function sizeProblem(size: Size, op: Operation): string | null {
  if (op.op === 'pad' && (op.width < size.width || op.height < size.height)) {
    return `cannot pad ${size.width}×${size.height} to ${op.width}×${op.height}: the canvas is smaller than the picture (crop or resize first)`;
  }
  return null;
}

/** The frame size after one operation (operations that keep the frame return it unchanged). */
export function sizeAfterOne(size: Size, op: Operation, grid: Grid): Size {
  switch (op.op) {
    case 'crop': {
      const { width, height } = cropRegion(size, op.aspectRatio, { x: 0.5, y: 0.5 }, grid);
      return { width, height };
    }
    case 'resize':
      return resized(size, op, grid);
    case 'pad':
      return { width: snap(op.width, grid), height: snap(op.height, grid) };
    case 'rotate':
      return op.degrees === 180 ? size : { width: size.height, height: size.width };
    default:
      return size;
  }
}

export type SizeWalk =
  | { readonly ok: true; readonly size: Size }
  | { readonly ok: false; readonly index: number; readonly reason: string };

/**
 * Walks the operations from the parent's size: the final size, or the first operation that cannot
 * be applied. After a `frame` the rest is a still's work, on the pixel grid.
 */
export function sizeAfter(parent: Size, operations: readonly Operation[], grid: Grid): SizeWalk {
  let size: Size = { width: snap(parent.width, grid), height: snap(parent.height, grid) };
  let onGrid = grid;
  for (const [index, op] of operations.entries()) {
    const problem = sizeProblem(size, op);
    if (problem !== null) return { ok: false, index, reason: problem };
    size = sizeAfterOne(size, op, onGrid);
    if (op.op === 'frame') onGrid = 'pixel';
  }
  return { ok: true, size };
}

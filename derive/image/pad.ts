/** Grows the canvas to exactly the pad's size, the picture at its anchor, the rest its background. */
import type { OperationAt } from '../derive-error.ts';
import type { Size } from '../geometry.ts';
import type { ImageOperation } from '../operations.ts';
import type { Reshape } from './picture.ts';
import { place } from './placement.ts';

type Pad = Extract<ImageOperation, { op: 'pad' }>;

export function padding(size: Size, op: Pad, at: OperationAt): Reshape {
  const { left, top } = place(op, size, op.position, 0);
  const extend = {
    left,
    top,
    right: op.width - size.width - left,
    bottom: op.height - size.height - top,
    background: op.background,
  };
  // Its background may be clear, adding an alpha channel: the pad is settled at once.
  return { at, onInput: true, keepsBands: false, apply: (image) => image.extend(extend) };
}

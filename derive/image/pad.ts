/** Grows the canvas to exactly the pad's size, the picture at its anchor, the rest its background. */
import type { ImageOperation } from '../operations.ts';
import { type Frame, pipeline, settle } from './frame.ts';
import { place } from './placement.ts';

type Pad = Extract<ImageOperation, { op: 'pad' }>;

export function pad(frame: Frame, op: Pad): Promise<Frame> {
  const { left, top } = place(op, frame, op.position, 0);
  return settle(
    pipeline(frame).extend({
      left,
      top,
      right: op.width - frame.width - left,
      bottom: op.height - frame.height - top,
      background: op.background,
    }),
  );
}

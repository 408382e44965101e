/** A quarter, half or three-quarter turn clockwise: whole pixels moved, none resampled. */
import type { ImageOperation } from '../operations.ts';
import { type Frame, pipeline, settle } from './frame.ts';

type Rotate = Extract<ImageOperation, { op: 'rotate' }>;

export function rotate(frame: Frame, op: Rotate): Promise<Frame> {
  return settle(pipeline(frame).rotate(op.degrees));
}

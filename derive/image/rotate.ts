/** A quarter, half or three-quarter turn clockwise: whole pixels moved, none resampled. */
import type { OperationAt } from '../derive-error.ts';
import type { ImageOperation } from '../operations.ts';
import type { Reshape } from './picture.ts';

type Rotate = Extract<ImageOperation, { op: 'rotate' }>;

export function rotating(op: Rotate, at: OperationAt): Reshape {
  return { at, onInput: false, keepsBands: true, apply: (image) => image.rotate(op.degrees) };
}

/**
 * A resize. Our fits are named for what the user gets, sharp's for how CSS names them: our
 * `contain` (the whole picture, inside the size) is sharp's `inside`, our `pad` (the whole picture,
 * letterboxed to exactly the size) is sharp's `contain`. With one side given the ratio is kept and
 * the fit does not matter.
 */
import type { FitEnum } from 'sharp';
import type { OperationAt } from '../derive-error.ts';
import type { ImageOperation } from '../operations.ts';
import type { Reshape } from './picture.ts';

type Resize = Extract<ImageOperation, { op: 'resize' }>;

const SHARP_FIT: Readonly<Record<Resize['fit'], keyof FitEnum>> = {
  cover: 'cover',
  contain: 'inside',
  pad: 'contain',
};

export function resizing(op: Resize, at: OperationAt): Reshape {
  const options = {
    width: op.width ?? undefined,
    height: op.height ?? undefined,
    fit: SHARP_FIT[op.fit],
    background: op.background,
  };
  // A letterbox's bands show its background, which may be clear.
  const letterbox = op.fit === 'pad' && op.width !== null && op.height !== null;
  return { at, onInput: true, keepsBands: !letterbox, apply: (image) => image.resize(options) };
}

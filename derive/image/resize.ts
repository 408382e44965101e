/**
 * A resize. Our fits are named for what the user gets, sharp's for how CSS names them: our
 * `contain` (the whole picture, inside the size) is sharp's `inside`, our `pad` (the whole picture,
 * letterboxed to exactly the size) is sharp's `contain`. With one side given the ratio is kept and
 * the fit does not matter.
 */
import type { FitEnum } from 'sharp';
import type { ImageOperation } from '../operations.ts';
import { type Frame, pipeline, settle } from './frame.ts';

type Resize = Extract<ImageOperation, { op: 'resize' }>;

const SHARP_FIT: Readonly<Record<Resize['fit'], keyof FitEnum>> = {
  cover: 'cover',
  contain: 'inside',
  pad: 'contain',
};

export function resize(frame: Frame, op: Resize): Promise<Frame> {
  return settle(
    pipeline(frame).resize({
      width: op.width ?? undefined,
      height: op.height ?? undefined,
      fit: SHARP_FIT[op.fit],
      background: op.background,
    }),
  );
}

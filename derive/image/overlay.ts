/**
 * An image (a logo) over the frame: scaled to its width (the ratio kept), its alpha multiplied by
 * the opacity, placed at its anchor. A logo larger than the frame less its margins is refused
 * rather than cut: a half logo is not what anyone asked for.
 */
import sharp from 'sharp';
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { Size } from '../geometry.ts';
import type { ImageOperation } from '../operations.ts';
import { readAsset } from './asset.ts';
import { reasonOf } from './failure-cause.ts';
import { type Frame, type Layer, pipeline, settle } from './frame.ts';
import { fitsWithin, place } from './placement.ts';

type Overlay = Extract<ImageOperation, { op: 'overlay' }>;

/** The logo's layer on a frame of this size (laid over it by picture.ts). */
export async function overlayLayers(frame: Size, op: Overlay, at: OperationAt): Promise<readonly Layer[]> {
  const logo = await logoAtWidth(await readAsset(op.image, at), op, at);
  if (!fitsWithin(frame, logo, op.margin)) {
    throw new DeriveError(
      at,
      `${op.image.path} at ${logo.width}×${logo.height} with a margin of ${op.margin} does not fit the ${frame.width}×${frame.height} frame (give it a smaller width)`,
    );
  }
  const faded =
    op.opacity === 1 ? logo : await settle(pipeline(logo).linear([1, 1, 1, op.opacity], [0, 0, 0, 0]));
  return [{ frame: faded, at: place(frame, logo, op.position, op.margin) }];
}

/** The logo at its width, as sRGB with an alpha channel whatever the file's own bands. */
async function logoAtWidth(bytes: Buffer, op: Overlay, at: OperationAt): Promise<Frame> {
  const image = sharp(bytes, { autoOrient: true }).ensureAlpha();
  if (op.width !== null) image.resize({ width: op.width });
  return settle(image).catch((error: unknown) => {
    throw new DeriveError(at, `${op.image.path} is not an image sharp can read (${reasonOf(error)})`);
  });
}

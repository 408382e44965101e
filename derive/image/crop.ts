/**
 * A crop to an aspect ratio: the region geometry's `cropRegion` names, at a fixed focus, or placed
 * by sharp's attention or entropy strategy. A strategy is run as a `cover` resize to exactly that
 * region's size: the region spans one whole side of the frame, so the scale is 1 and sharp only
 * chooses where along the other side to cut.
 */
import sharp from 'sharp';
import type { OperationAt } from '../derive-error.ts';
import { cropRegion, type Size } from '../geometry.ts';
import type { ImageOperation } from '../operations.ts';
import type { Reshape } from './picture.ts';

type Crop = Extract<ImageOperation, { op: 'crop' }>;

const CENTRE = { x: 0.5, y: 0.5 } as const;

export function cropping(size: Size, op: Crop, at: OperationAt): Reshape {
  const { focus } = op;
  const reshape = { at, onInput: true, keepsBands: true };
  if (focus === 'attention' || focus === 'entropy') {
    const { width, height } = cropRegion(size, op.aspectRatio, CENTRE, 'pixel');
    const position = sharp.strategy[focus];
    return { ...reshape, apply: (image) => image.resize({ width, height, fit: 'cover', position }) };
  }
  const region = cropRegion(size, op.aspectRatio, focus === 'centre' ? CENTRE : focus, 'pixel');
  return { ...reshape, apply: (image) => image.extract(region) };
}

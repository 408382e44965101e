/**
 * A crop to an aspect ratio: the region geometry's `cropRegion` names, at a fixed focus, or placed
 * by sharp's attention or entropy strategy. A strategy is run as a `cover` resize to exactly that
 * region's size: the region spans one whole side of the frame, so the scale is 1 and sharp only
 * chooses where along the other side to cut.
 */
import sharp from 'sharp';
import { cropRegion } from '../geometry.ts';
import type { ImageOperation } from '../operations.ts';
import { type Frame, pipeline, settle } from './frame.ts';

type Crop = Extract<ImageOperation, { op: 'crop' }>;

const CENTRE = { x: 0.5, y: 0.5 } as const;

export function crop(frame: Frame, op: Crop): Promise<Frame> {
  const { focus } = op;
  if (focus === 'attention' || focus === 'entropy') {
    const { width, height } = cropRegion(frame, op.aspectRatio, CENTRE, 'pixel');
    return settle(pipeline(frame).resize({ width, height, fit: 'cover', position: sharp.strategy[focus] }));
  }
  const region = cropRegion(frame, op.aspectRatio, focus === 'centre' ? CENTRE : focus, 'pixel');
  return settle(pipeline(frame).extract(region));
}

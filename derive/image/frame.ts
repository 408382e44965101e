/**
 * A still's decoded pixels (8-bit sRGB, with or without alpha) and size, where a derivative's
 * pixels must be settled between two pipelines (picture.ts says when), and the layers (a text, a
 * logo) laid over a picture.
 */
import sharp, { type Channels, type Sharp } from 'sharp';
import type { Region, Size } from '../geometry.ts';

export interface Frame extends Size {
  readonly pixels: Buffer;
  readonly channels: Channels;
}

/** A pipeline that starts from the frame's pixels. */
export function pipeline(frame: Frame): Sharp {
  const { width, height, channels } = frame;
  return sharp(frame.pixels, { raw: { width, height, channels } });
}

/** Runs a pipeline to 8-bit sRGB pixels. */
export async function settle(image: Sharp): Promise<Frame> {
  const { data, info } = await image.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { pixels: data, width: info.width, height: info.height, channels: info.channels };
}

/** A frame laid over another at a region's top-left corner. */
export interface Layer {
  readonly frame: Frame;
  readonly at: Pick<Region, 'left' | 'top'>;
}

/**
 * A still between two operations: its decoded pixels (8-bit sRGB, with or without alpha) and size.
 * Each operation is a sharp pipeline of its own because sharp runs one pipeline's steps in its own
 * fixed order (resize, then extend, then composite...), not in the order a derive list names them;
 * raw pixels between them keep every step lossless and every size the one geometry predicts.
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

/** Runs a pipeline to the next frame. */
export async function settle(image: Sharp): Promise<Frame> {
  const { data, info } = await image.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { pixels: data, width: info.width, height: info.height, channels: info.channels };
}

/** A frame laid over another at a region's top-left corner. */
export interface Layer {
  readonly frame: Frame;
  readonly at: Pick<Region, 'left' | 'top'>;
}

/**
 * Lays layers over the frame, in order. sharp composites with an alpha channel; an opaque frame
 * stays opaque under any layer, so it loses that channel again rather than carry it into the file.
 */
export function compose(frame: Frame, layers: readonly Layer[]): Promise<Frame> {
  const image = pipeline(frame).composite(
    layers.map(({ frame: layer, at }) => ({
      input: layer.pixels,
      raw: { width: layer.width, height: layer.height, channels: layer.channels },
      left: at.left,
      top: at.top,
    })),
  );
  return settle(frame.channels === 3 ? image.removeAlpha() : image);
}

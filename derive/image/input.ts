/**
 * The input still, decoded: its pixels turned upright by their EXIF orientation (what every viewer
 * shows, so what a crop's focus means), and the format a derivative without a `format` operation
 * keeps. An input in another format (gif, tiff...) is kept as png, which loses nothing.
 */
import sharp from 'sharp';
import { DeriveError } from '../derive-error.ts';
import { ImageFormat } from '../operations.ts';
import { reasonOf } from './failure-cause.ts';
import { type Frame, settle } from './frame.ts';

export interface Input {
  readonly frame: Frame;
  readonly format: ImageFormat;
}

export async function decode(bytes: Buffer): Promise<Input> {
  try {
    const image = sharp(bytes, { autoOrient: true });
    const { format, compression } = await image.metadata();
    // sharp names AVIF by its container, HEIF, and its codec, AV1.
    const named = format === 'heif' && compression === 'av1' ? 'avif' : format;
    const kept = ImageFormat.safeParse(named);
    return { frame: await settle(image), format: kept.success ? kept.data : 'png' };
  } catch (error) {
    throw new DeriveError(null, `the input is not an image sharp can read (${reasonOf(error)})`);
  }
}

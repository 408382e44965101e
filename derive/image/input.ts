/**
 * The input still, read for what a derivative needs before its pixels: its size turned upright by
 * its EXIF orientation (what every viewer shows, so what a crop's focus means), its bands, and the
 * format a derivative without a `format` operation keeps. An input in another format (gif,
 * tiff...) is kept as png, which loses nothing. Its pixels are decoded in the pipeline of the
 * first operation (picture.ts), except an input that is not 8-bit sRGB: that one is decoded on its
 * own, to 8-bit sRGB, so every operation after it sees the pixels it always has.
 */
import sharp from 'sharp';
import { DeriveError } from '../derive-error.ts';
import { ImageFormat } from '../operations.ts';
import { reasonOf } from './failure-cause.ts';
import { framePicture, inputPicture, type Picture, settled } from './picture.ts';

export interface Input {
  readonly picture: Picture;
  readonly format: ImageFormat;
}

export async function decode(bytes: Buffer): Promise<Input> {
  const metadata = await sharp(bytes)
    .metadata()
    .catch((error: unknown) => {
      throw new DeriveError(null, `the input is not an image sharp can read (${reasonOf(error)})`);
    });
  const { format, compression, autoOrient, space, depth, channels } = metadata;
  // sharp names AVIF by its container, HEIF, and its codec, AV1.
  const named = format === 'heif' && compression === 'av1' ? 'avif' : format;
  const kept = ImageFormat.safeParse(named);
  const sRgb = space === 'srgb' && depth === 'uchar' && (channels === 3 || channels === 4);
  const picture = inputPicture(bytes, autoOrient, sRgb ? channels : 3);
  return {
    picture: sRgb ? picture : framePicture(await settled(picture), null),
    format: kept.success ? kept.data : 'png',
  };
}

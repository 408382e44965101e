/**
 * A still on its way through a derivative's operations, its pixels settled only where they must
 * be. sharp runs one pipeline's steps in its own fixed order (the input turned upright, then an
 * extract or a resize, then the layers composited, then the output), not in the order a derive
 * list names them, so a picture is what one pipeline can do in the list's order: a source (the
 * input file or settled pixels), at most one reshape (a crop, resize, pad or rotate), then any
 * layers (texts, logos) over it. A reshape after layers or after another reshape settles what came
 * before it. Each settle, and the file's encode, checks that the pipeline made the size geometry
 * predicted for it.
 */
import sharp, { type Channels, type Sharp } from 'sharp';
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { Size } from '../geometry.ts';
import { errnoOf, reasonOf } from './failure-cause.ts';
import { type Frame, type Layer, pipeline, settle } from './frame.ts';

export interface Reshape {
  readonly at: OperationAt;
  readonly apply: (image: Sharp) => Sharp;
  /**
   * Whether it can share the input's pipeline, run right after sharp turns the input upright:
   * not a rotate, which sharp would fold into the input's own orientation.
   */
  readonly onInput: boolean;
  /** False for a pad or letterbox, whose background may add an alpha channel: settled at once. */
  readonly keepsBands: boolean;
}

type Source = { readonly input: Buffer } | { readonly frame: Frame };

export interface Picture extends Size {
  readonly source: Source;
  readonly reshape: Reshape | null;
  readonly layers: readonly Layer[];
  /** 3, or 4 with alpha: layers over an opaque picture lose the alpha channel compositing adds. */
  readonly channels: Channels;
  /** The last operation folded in (null: none yet). */
  readonly at: OperationAt | null;
}

/** The input file, not yet decoded, at the size and bands its metadata gives (upright). */
export function inputPicture(bytes: Buffer, size: Size, channels: Channels): Picture {
  return { ...size, source: { input: bytes }, reshape: null, layers: [], channels, at: null };
}

export function framePicture(frame: Frame, at: OperationAt | null): Picture {
  const { width, height, channels } = frame;
  return { width, height, channels, source: { frame }, reshape: null, layers: [], at };
}

/** The picture reshaped to `size`: in the same pipeline where sharp's order allows, else after a settle. */
export async function reshaped(picture: Picture, size: Size, reshape: Reshape): Promise<Picture> {
  const shares =
    picture.reshape === null && picture.layers.length === 0 && ('frame' in picture.source || reshape.onInput);
  const base = shares ? picture : framePicture(await settled(picture), picture.at);
  const next = { ...base, ...size, reshape, at: reshape.at };
  return reshape.keepsBands ? next : framePicture(await settled(next), reshape.at);
}

export function layered(picture: Picture, layers: readonly Layer[], at: OperationAt): Picture {
  return { ...picture, layers: [...picture.layers, ...layers], at };
}

/** The picture's pipeline, ending in 8-bit sRGB. */
function open(picture: Picture): Sharp {
  const { source, reshape, layers } = picture;
  let image = 'input' in source ? sharp(source.input, { autoOrient: true }) : pipeline(source.frame);
  if (reshape !== null) image = reshape.apply(image);
  if (layers.length > 0) {
    image.composite(
      layers.map(({ frame, at }) => ({
        input: frame.pixels,
        raw: { width: frame.width, height: frame.height, channels: frame.channels },
        left: at.left,
        top: at.top,
      })),
    );
    if (picture.channels === 3) image.removeAlpha();
  }
  return image.toColourspace('srgb');
}

/**
 * Runs the picture's pipeline to its output (raw pixels, a file). sharp's refusals become a
 * DeriveError: of the input when the pipeline decodes it (its metadata read, so what fails there
 * is its pixels: a truncated file), else of the last operation folded in. A system error (an
 * errno) is thrown as it is, for the activity to retry.
 */
export async function run<T extends { readonly info: Size }>(
  picture: Picture,
  output: (image: Sharp) => Promise<T>,
): Promise<T> {
  let made: T;
  try {
    made = await output(open(picture));
  } catch (error) {
    if (error instanceof DeriveError || errnoOf(error) !== null) throw error;
    if ('input' in picture.source) {
      throw new DeriveError(null, `the input is not an image sharp can read (${reasonOf(error)})`);
    }
    throw new DeriveError(picture.at, reasonOf(error));
  }
  const { width, height } = made.info;
  if (width !== picture.width || height !== picture.height) {
    throw new DeriveError(
      picture.reshape?.at ?? picture.at,
      `made ${width}×${height} where the plan expects ${picture.width}×${picture.height}`,
    );
  }
  return made;
}

/** The picture's pixels. */
export async function settled(picture: Picture): Promise<Frame> {
  if ('frame' in picture.source && picture.reshape === null && picture.layers.length === 0) {
    return picture.source.frame;
  }
  const { frame } = await run(picture, async (image) => {
    const made = await settle(image);
    return { frame: made, info: made };
  });
  return frame;
}

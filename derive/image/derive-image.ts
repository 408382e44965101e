/**
 * A still derivative: the input decoded once, each operation applied in the order the plan lists
 * them, the result written in the format asked for (or the input's own) with the provenance XMP in
 * it. Each operation must leave the size geometry predicts, the size validate promised; the
 * operations share sharp pipelines where sharp's own order is the list's (picture.ts), so pixels
 * are settled only between pipelines.
 *
 * sharp's thread pool is left as it is (no `sharp.concurrency()` here): the caller decides how many
 * derivatives run at once, and a library that resized a process-wide pool would override it.
 */
import { DeriveError, type OperationAt } from '../derive-error.ts';
import { sizeAfterOne, sizeProblem } from '../geometry.ts';
import { ImageFormat, type ImageOperation } from '../operations.ts';
import { cropping } from './crop.ts';
import { type Encoding, encode } from './encode.ts';
import { errnoOf, reasonOf } from './failure-cause.ts';
import { decode } from './input.ts';
import { overlayLayers } from './overlay.ts';
import { padding } from './pad.ts';
import { layered, type Picture, reshaped } from './picture.ts';
import { resizing } from './resize.ts';
import { rotating } from './rotate.ts';
import { textLayers } from './text.ts';

export interface DerivedImage {
  readonly data: Buffer;
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
}

export interface DeriveImageOptions {
  /** An XMP packet to embed (the output's provenance), or null for none. */
  readonly xmp: string | null;
}

type PixelOperation = Exclude<ImageOperation, { op: 'format' }>;

export async function deriveImage(
  input: Buffer,
  operations: readonly ImageOperation[],
  options: DeriveImageOptions,
): Promise<DerivedImage> {
  const decoded = await decode(input);
  let picture = decoded.picture;
  let encoding: Encoding = { at: null, type: decoded.format, quality: null, maxBytes: null };
  for (const [index, op] of operations.entries()) {
    const at = { index, name: op.op };
    if (op.op === 'format') {
      encoding = stillEncoding(op, at);
      continue;
    }
    const problem = sizeProblem(picture, op);
    if (problem !== null) throw new DeriveError(at, problem);
    picture = await applied(picture, op, at);
  }
  const data = await encode(picture, encoding, options.xmp);
  return { data, format: encoding.type, width: picture.width, height: picture.height };
}

function stillEncoding(op: Extract<ImageOperation, { op: 'format' }>, at: OperationAt): Encoding {
  const type = ImageFormat.safeParse(op.type);
  if (!type.success) {
    throw new DeriveError(at, `${op.type} is a clip's format: a still is written as jpeg, png, webp or avif`);
  }
  return { at, type: type.data, quality: op.quality, maxBytes: op.maxBytes };
}

/** One operation folded into the picture; sharp's refusals become this operation's DeriveError. */
async function applied(picture: Picture, op: PixelOperation, at: OperationAt): Promise<Picture> {
  try {
    return await apply(picture, op, at);
  } catch (error) {
    if (error instanceof DeriveError || errnoOf(error) !== null) throw error;
    throw new DeriveError(at, reasonOf(error));
  }
}

async function apply(picture: Picture, op: PixelOperation, at: OperationAt): Promise<Picture> {
  const size = sizeAfterOne(picture, op, 'pixel');
  switch (op.op) {
    case 'crop':
      return reshaped(picture, size, cropping(picture, op, at));
    case 'resize':
      return reshaped(picture, size, resizing(op, at));
    case 'pad':
      return reshaped(picture, size, padding(picture, op, at));
    case 'rotate':
      return reshaped(picture, size, rotating(op, at));
    case 'text':
      return layered(picture, await textLayers(picture, op, at), at);
    case 'overlay':
      return layered(picture, await overlayLayers(picture, op, at), at);
  }
}

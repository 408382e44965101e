/**
 * A still derivative: the input decoded once, each operation applied in the order the plan lists
 * them, the result written in the format asked for (or the input's own) with the provenance XMP in
 * it. Each operation must leave the size geometry predicts, the size validate promised.
 *
 * sharp's thread pool is left as it is (no `sharp.concurrency()` here): the caller decides how many
 * derivatives run at once, and a library that resized a process-wide pool would override it.
 */
import { DeriveError, type OperationAt } from '../derive-error.ts';
import { sizeAfterOne, sizeProblem } from '../geometry.ts';
import { ImageFormat, type ImageOperation } from '../operations.ts';
import { crop } from './crop.ts';
import { type Encoding, encode } from './encode.ts';
import { errnoOf, reasonOf } from './failure-cause.ts';
import type { Frame } from './frame.ts';
import { decode } from './input.ts';
import { overlay } from './overlay.ts';
import { pad } from './pad.ts';
import { resize } from './resize.ts';
import { rotate } from './rotate.ts';
import { drawText } from './text.ts';

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
  let frame = decoded.frame;
  let encoding: Encoding = { at: null, type: decoded.format, quality: null, maxBytes: null };
  for (const [index, op] of operations.entries()) {
    const at = { index, name: op.op };
    if (op.op === 'format') {
      encoding = stillEncoding(op, at);
      continue;
    }
    const problem = sizeProblem(frame, op);
    if (problem !== null) throw new DeriveError(at, problem);
    const expected = sizeAfterOne(frame, op, 'pixel');
    frame = await applied(frame, op, at);
    if (frame.width !== expected.width || frame.height !== expected.height) {
      throw new DeriveError(
        at,
        `made ${frame.width}×${frame.height} where the plan expects ${expected.width}×${expected.height}`,
      );
    }
  }
  const data = await encode(frame, encoding, options.xmp);
  return { data, format: encoding.type, width: frame.width, height: frame.height };
}

function stillEncoding(op: Extract<ImageOperation, { op: 'format' }>, at: OperationAt): Encoding {
  const type = ImageFormat.safeParse(op.type);
  if (!type.success) {
    throw new DeriveError(at, `${op.type} is a clip's format: a still is written as jpeg, png, webp or avif`);
  }
  return { at, type: type.data, quality: op.quality, maxBytes: op.maxBytes };
}

/** One operation's frame; sharp's refusals become this operation's DeriveError. */
async function applied(frame: Frame, op: PixelOperation, at: OperationAt): Promise<Frame> {
  try {
    return await apply(frame, op, at);
  } catch (error) {
    if (error instanceof DeriveError || errnoOf(error) !== null) throw error;
    throw new DeriveError(at, reasonOf(error));
  }
}

function apply(frame: Frame, op: PixelOperation, at: OperationAt): Promise<Frame> {
  switch (op.op) {
    case 'crop':
      return crop(frame, op);
    case 'resize':
      return resize(frame, op);
    case 'pad':
      return pad(frame, op);
    case 'rotate':
      return rotate(frame, op);
    case 'text':
      return drawText(frame, op, at);
    case 'overlay':
      return overlay(frame, op, at);
  }
}

/**
 * One derivative's bytes from its parent's: a still through sharp; a clip through ffmpeg, in a
 * folder of its own under the system's temporary folder (ffmpeg reads and writes files, and the
 * parent may live in a bucket), removed whatever happens, so a killed or failed cut leaves nothing
 * half-made where outputs live. A `frame` hands the still it takes to sharp for what follows.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeriveError } from '../../derive/derive-error.ts';

import { IMAGE_OPERATIONS, type ImageOperation, type Operation } from '../../derive/operations.ts';

import type { DeriveDeps } from './deps.ts';

export interface Produced {
  readonly data: Buffer;
  /** The file's extension: `jpg`, `png`, `webp`, `avif`, `mp4`, `webm`. */
  readonly extension: string;
  readonly width: number;
  readonly height: number;
  readonly durationSeconds: number | null;
}

export async function produce(
  deps: DeriveDeps,
  parent: { readonly bytes: Buffer; readonly video: boolean },
  operations: readonly Operation[],
): Promise<Produced> {
  if (!parent.video) return still(parent.bytes, operations, 0);
  const folder = await mkdtemp(join(tmpdir(), 'mediaflow-derive-'));
  try {
    const input = join(folder, 'parent');
    await writeFile(input, parent.bytes);
    const format = operations.find((op) => op.op === 'format');
    const type = format && (format.type === 'webm' ? 'webm' : 'mp4');
    const output = join(folder, `derived.${type ?? 'mp4'}`);
    // Loaded on first use: a worker with no clip to cut never maps what it needs.
    const { deriveVideo } = await import('../../derive/video/derive-video.ts');
    const made = await deriveVideo(input, operations, output, {
      tools: deps.video,
      threads: deps.threads,
    });
    if (made.kind === 'still') return still(made.data, made.rest, operations.length - made.rest.length);
    return {
      data: await readFile(output),
      extension: made.format,
      width: made.width,
      height: made.height,
      durationSeconds: made.durationSeconds,
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function still(bytes: Buffer, operations: readonly Operation[], offset: number): Promise<Produced> {
  // sharp's native library, tens of megabytes, is mapped only once a still is derived.
  const { deriveImage } = await import('../../derive/image/derive-image.ts');
  const made = await deriveImage(bytes, imageOperations(operations, offset), { xmp: null });
  return {
    data: made.data,
    extension: made.format === 'jpeg' ? 'jpg' : made.format,
    width: made.width,
    height: made.height,
    durationSeconds: null,
  };
}

const IMAGE = new Set<string>(IMAGE_OPERATIONS);

/** The plan let only image work follow a still; a plan edited by hand is refused here, by name. */
function imageOperations(operations: readonly Operation[], offset: number): ImageOperation[] {
  return operations.map((op, index) => {
    if (!isImageOperation(op)) {
      throw new DeriveError({ index: offset + index, name: op.op }, 'a still cannot take this operation');
    }
    return op;
  });
}

function isImageOperation(op: Operation): op is ImageOperation {
  return IMAGE.has(op.op);
}

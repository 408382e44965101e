/**
 * A clip's derivative: one ffmpeg run carries out its operations, in a working folder of its own
 * that holds the words and fonts the filters read. The result is a clip at `outputPath`, or, when
 * the operations take a `frame`, that still as PNG bytes with the operations left for the image
 * side. A failed or aborted run leaves no file at `outputPath`.
 */
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { Operation, VideoFormat, VideoOperation } from '../operations.ts';
import { type FfmpegProduct, type FfmpegRun, ffmpegRun, type WorkFile } from './ffmpeg-arguments.ts';
import { ffmpegFailure, operationAt } from './ffmpeg-failure.ts';
import { probe } from './probe.ts';
import { progressFraction } from './progress.ts';
import { runTool } from './run-tool.ts';
import type { VideoTools } from './tools.ts';

export type DerivedVideo =
  | {
      readonly kind: 'clip';
      readonly format: VideoFormat;
      readonly width: number;
      readonly height: number;
      readonly durationSeconds: number;
      readonly bytes: number;
    }
  | {
      readonly kind: 'still';
      /** PNG. */
      readonly data: Buffer;
      /** The operations after the `frame`: the image side's to carry out on `data`. */
      readonly rest: readonly Operation[];
    };

export interface DeriveVideoOptions {
  readonly tools: VideoTools;
  /** ffmpeg's threads for decoding, filtering and encoding: the worker's share of the machine. */
  readonly threads: number;
  /** The fraction (0–1) of the clip made so far. */
  readonly onProgress?: (fraction: number) => void;
  readonly signal?: AbortSignal;
}

export async function deriveVideo(
  inputPath: string,
  operations: readonly VideoOperation[],
  outputPath: string,
  options: DeriveVideoOptions,
): Promise<DerivedVideo> {
  const source = await probe(inputPath, options.tools);
  options.signal?.throwIfAborted();
  const run = ffmpegRun({ source, inputPath, operations, outputPath, threads: options.threads });
  const work = await mkdtemp(join(tmpdir(), 'mediaflow-video-'));
  try {
    await assetsReadable(run, operations);
    await Promise.all(run.files.map((file) => putWorkFile(work, file)));
    await runFfmpeg(run, operations, outputPath, work, options);
    if (run.product.kind === 'still') {
      return { kind: 'still', data: await readFile(join(work, run.product.file)), rest: run.product.rest };
    }
    return await madeClip(outputPath, run.product, options.tools).catch(async (error: unknown) => {
      await rm(outputPath, { force: true });
      throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The clip as ffprobe reads it back, if it keeps within `maxBytes`. */
async function madeClip(
  outputPath: string,
  product: Extract<FfmpegProduct, { kind: 'clip' }>,
  tools: VideoTools,
): Promise<DerivedVideo> {
  const { width, height, durationSeconds } = await probe(outputPath, tools);
  const { size: bytes } = await stat(outputPath);
  if (product.maxBytes !== null && bytes > product.maxBytes) {
    // A clip is not re-encoded to fit: its bit rate follows from the quality, so a lower quality
    // or a shorter trim is the spec's to choose.
    const blame: OperationAt | null =
      product.formatAt === null ? null : { index: product.formatAt, name: 'format' };
    throw new DeriveError(blame, `the clip is ${bytes} bytes, over max_bytes ${product.maxBytes}`);
  }
  return { kind: 'clip', format: product.format, width, height, durationSeconds, bytes };
}

/**
 * Every asset is looked at before ffmpeg runs: drawtext given a font it cannot open quietly draws
 * fontconfig's default instead, a clip in the wrong typeface with no error.
 */
async function assetsReadable(run: FfmpegRun, operations: readonly VideoOperation[]): Promise<void> {
  const fonts = run.files.flatMap((file) => ('link' in file ? [file.link] : []));
  for (const asset of [...run.sideInputs, ...fonts]) {
    try {
      await access(asset.path, constants.R_OK);
    } catch {
      throw new DeriveError(operationAt(operations, asset.owner), `cannot read ${asset.path}`);
    }
  }
}

function putWorkFile(work: string, file: WorkFile): Promise<void> {
  const path = join(work, file.name);
  return 'link' in file ? symlink(file.link.path, path) : writeFile(path, file.contents);
}

/** Runs ffmpeg to its end; on failure or abort removes what it wrote at `outputPath` and throws. */
async function runFfmpeg(
  run: FfmpegRun,
  operations: readonly VideoOperation[],
  outputPath: string,
  work: string,
  options: DeriveVideoOptions,
): Promise<void> {
  let reported = 0;
  const onStdoutLine = (line: string): void => {
    const fraction = progressFraction(line, run.seconds);
    if (fraction === null || fraction <= reported) return;
    reported = fraction;
    options.onProgress?.(fraction);
  };
  const removeOutput = () =>
    run.product.kind === 'clip' ? rm(outputPath, { force: true }) : Promise.resolve();
  try {
    const result = await runTool(options.tools.ffmpeg, run.args, {
      cwd: work,
      signal: options.signal,
      onStdoutLine,
    });
    // An abort that came as ffmpeg was exiting kills nothing and rejects nothing: it still wins.
    options.signal?.throwIfAborted();
    if (result.exitCode !== 0) throw ffmpegFailure(run, operations, result.stderrTail, result.exitCode);
    if (reported < 1) options.onProgress?.(1);
  } catch (error) {
    await removeOutput();
    if (options.signal?.aborted) throw options.signal.reason;
    throw error;
  }
}

/**
 * One ffmpeg run for a clip's operations: its arguments, the filter graph, the files it reads from
 * its working folder (words and fonts, named there so no path needs escaping inside the graph) and
 * what it will make. Pure: nothing runs here, so the arguments can be read and tested as they are.
 *
 * Trims become input seeking (`-ss`/`-t` before `-i`): ffmpeg then decodes only what is kept, the
 * sound is cut with the picture, and a `frame` is one seek to its time.
 */
import { resolve } from 'node:path';
import { DeriveError } from '../derive-error.ts';
import { cropRegion, type Size, sizeAfter, sizeAfterOne, sizeProblem } from '../geometry.ts';
import type { Operation, VideoFormat, VideoOperation } from '../operations.ts';
import { FilterGraph, GRAPH_OUT } from './filter-graph.ts';
import {
  cropFilter,
  focusPoint,
  overlayFilters,
  padFilter,
  resizeFilters,
  rotateFilters,
  textFilter,
} from './picture-filters.ts';
import type { ProbedVideo } from './probe.ts';
import { encoderArguments } from './video-encoders.ts';

/** A file ffmpeg reads from its working folder: written out, or a link to an asset. */
export type WorkFile =
  | { readonly name: string; readonly contents: string }
  | { readonly name: string; readonly link: string };

/** An input after the clip (a logo, a sound) and the operation that brought it. */
export interface SideInput {
  readonly path: string;
  readonly owner: number;
}

export type FfmpegProduct =
  | {
      readonly kind: 'clip';
      readonly format: VideoFormat;
      readonly size: Size;
      readonly maxBytes: number | null;
      /** The `format` operation's index, to blame for a clip over `maxBytes`. */
      readonly formatAt: number | null;
    }
  | {
      readonly kind: 'still';
      readonly file: string;
      readonly size: Size;
      readonly rest: readonly Operation[];
    };

export interface FfmpegRun {
  readonly args: readonly string[];
  readonly graph: FilterGraph;
  readonly sideInputs: readonly SideInput[];
  readonly files: readonly WorkFile[];
  /** How long the output runs, for progress. */
  readonly seconds: number;
  readonly product: FfmpegProduct;
}

export const STILL_FILE = 'still.png';

type Sound =
  | { readonly kind: 'source' }
  | { readonly kind: 'none' }
  | { readonly kind: 'file'; readonly path: string; readonly volume: number; readonly owner: number };

/** Seconds as ffmpeg reads them, without binary-fraction noise (0.30000000000000004). */
const seconds = (value: number): string => String(Number(value.toFixed(6)));

export interface ClipJob {
  readonly source: ProbedVideo;
  readonly inputPath: string;
  readonly operations: readonly VideoOperation[];
  readonly outputPath: string;
  readonly threads: number;
}

export function ffmpegRun(job: ClipJob): FfmpegRun {
  const { source } = job;
  const graph = new FilterGraph();
  const sideInputs: SideInput[] = [];
  const files: WorkFile[] = [];
  let size = evenSize(source);
  if (size.width !== source.width || size.height !== source.height) {
    graph.video(cropFilter({ left: 0, top: 0, ...size }), null);
  }
  let start = 0;
  let end = source.durationSeconds;
  let sound: Sound = source.hasAudio ? { kind: 'source' } : { kind: 'none' };
  let format: { type: VideoFormat; quality: number | null; maxBytes: number | null; at: number } | null =
    null;

  for (const [index, op] of job.operations.entries()) {
    const blame = { index, name: op.op };
    const problem = sizeProblem(size, op);
    if (problem !== null) throw new DeriveError(blame, problem);
    const next = sizeAfterOne(size, op, 'even');
    switch (op.op) {
      case 'crop':
        graph.video(cropFilter(cropRegion(size, op.aspectRatio, focusPoint(op.focus), 'even')), index);
        break;
      case 'resize':
        for (const filter of resizeFilters(op, next)) graph.video(filter, index);
        break;
      case 'pad':
        graph.video(padFilter(op, size, next), index);
        break;
      case 'rotate':
        for (const filter of rotateFilters(op)) graph.video(filter, index);
        break;
      case 'text': {
        const names = { font: `font-${index}.ttf`, text: `text-${index}.txt` };
        const burnt = textFilter(op, size, names);
        files.push(
          { name: names.font, link: resolve(op.font.path) },
          { name: names.text, contents: burnt.lines },
        );
        graph.video(burnt.filter, index);
        break;
      }
      case 'overlay': {
        sideInputs.push({ path: resolve(op.image.path), owner: index });
        const filters = overlayFilters(op);
        graph.overlay(sideInputs.length, filters.prepare, filters.overlay, index);
        break;
      }
      case 'trim': {
        const from = start + op.start;
        if (from >= end) {
          throw new DeriveError(
            blame,
            `starts at ${seconds(op.start)} s, past the end of a clip ${seconds(end - start)} s long`,
          );
        }
        start = from;
        if (op.duration !== null) end = Math.min(end, from + op.duration);
        break;
      }
      case 'fps':
        graph.video(`fps=${op.value}`, index);
        break;
      case 'mute':
        sound = { kind: 'none' };
        break;
      case 'audio':
        sound = { kind: 'file', path: resolve(op.file.path), volume: op.volume, owner: index };
        break;
      case 'format':
        if (op.type !== 'mp4' && op.type !== 'webm') {
          throw new DeriveError(blame, `a clip cannot be made a ${op.type}: take a frame first`);
        }
        format = { type: op.type, quality: op.quality, maxBytes: op.maxBytes, at: index };
        break;
      case 'frame': {
        if (op.at >= end - start) {
          throw new DeriveError(
            blame,
            `at ${seconds(op.at)} s is past the end of a clip ${seconds(end - start)} s long`,
          );
        }
        graph.video('setsar=1', null);
        const args = [
          ...inputArguments(job, start + op.at, null, sideInputs, graph),
          '-frames:v',
          '1',
          '-c:v',
          'png',
          '-update',
          '1',
          STILL_FILE,
        ];
        const rest = job.operations.slice(index + 1);
        return {
          args,
          graph,
          sideInputs,
          files,
          seconds: 0,
          product: { kind: 'still', file: STILL_FILE, size, rest },
        };
      }
    }
    size = next;
  }

  const length = end - start;
  graph.video('setsar=1', null);
  const soundArgs = soundArguments(sound, graph, sideInputs, length);
  const type = format?.type ?? 'mp4';
  const args = [
    ...inputArguments(job, start, end < source.durationSeconds ? length : null, sideInputs, graph),
    ...soundArgs,
    ...encoderArguments(type, format?.quality ?? null, sound.kind !== 'none'),
    '-threads',
    String(job.threads),
    '-progress',
    'pipe:1',
    '-nostats',
    resolve(job.outputPath),
  ];
  const product: FfmpegProduct = {
    kind: 'clip',
    format: type,
    size,
    maxBytes: format?.maxBytes ?? null,
    formatAt: format?.at ?? null,
  };
  return { args, graph, sideInputs, files, seconds: length, product };
}

/** The clip's size on the even grid: geometry rounds odd sides down before the first operation. */
function evenSize(size: Size): Size {
  const walk = sizeAfter(size, [], 'even');
  return walk.ok ? walk.size : size;
}

/** Everything up to the picture's mapping: the clip from `start` (for `duration`), the side inputs, the graph. */
function inputArguments(
  job: ClipJob,
  start: number,
  duration: number | null,
  sideInputs: readonly SideInput[],
  graph: FilterGraph,
): string[] {
  const threads = String(job.threads);
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-filter_complex_threads', threads],
    ...(start > 0 ? ['-ss', seconds(start)] : []),
    ...(duration === null ? [] : ['-t', seconds(duration)]),
    ...['-threads', threads, '-i', resolve(job.inputPath)],
    ...sideInputs.flatMap((input) => ['-i', input.path]),
    ...['-filter_complex', graph.text(), '-map', `[${GRAPH_OUT.picture}]`],
  ];
}

/** Maps the sound: the clip's own, none, or a file's cut (or padded with silence) to the clip's length. */
function soundArguments(sound: Sound, graph: FilterGraph, sideInputs: SideInput[], length: number): string[] {
  if (sound.kind === 'none') return ['-an'];
  if (sound.kind === 'source') return ['-map', '0:a:0'];
  sideInputs.push({ path: sound.path, owner: sound.owner });
  const duration = seconds(length);
  graph.audio(
    sideInputs.length,
    [`atrim=end=${duration}`, `apad=whole_dur=${duration}`, `volume=${sound.volume}`],
    sound.owner,
  );
  return ['-map', `[${GRAPH_OUT.sound}]`];
}

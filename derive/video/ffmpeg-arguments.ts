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

/** An asset file ffmpeg reads (a logo, a sound, a font) and the operation (its index) that names it. */
export interface AssetUse {
  readonly path: string;
  readonly owner: number;
}

/** A file ffmpeg reads from its working folder: written out, or a link to an asset (a font). */
export type WorkFile =
  | { readonly name: string; readonly contents: string }
  | { readonly name: string; readonly link: AssetUse };

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
  /** The inputs after the clip, in input order from 1: logos, then the sound. */
  readonly sideInputs: readonly AssetUse[];
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

/** What the operations so far have asked of the run, besides the picture's filters. */
interface Settings {
  /** The part of the source kept, seconds. */
  start: number;
  end: number;
  sound: Sound;
  format: { type: VideoFormat; quality: number | null; maxBytes: number | null; at: number } | null;
}

/** Where the picture operations put their work: the graph, its side inputs, its working files. */
interface Work {
  readonly graph: FilterGraph;
  readonly sideInputs: AssetUse[];
  readonly files: WorkFile[];
}

export function ffmpegRun(job: ClipJob): FfmpegRun {
  const { source } = job;
  const work: Work = { graph: new FilterGraph(), sideInputs: [], files: [] };
  let size = evenSize(source);
  if (size.width !== source.width || size.height !== source.height) {
    work.graph.video(cropFilter({ left: 0, top: 0, ...size }), null);
  }
  const settings: Settings = {
    start: 0,
    end: source.durationSeconds,
    sound: source.hasAudio ? { kind: 'source' } : { kind: 'none' },
    format: null,
  };
  for (const [index, op] of job.operations.entries()) {
    const problem = sizeProblem(size, op);
    if (problem !== null) throw new DeriveError({ index, name: op.op }, problem);
    const next = sizeAfterOne(size, op, 'even');
    if (op.op === 'frame') {
      return still(job, work, settings, op.at, index, size);
    }
    addPictureWork(work, op, index, size, next);
    settle(settings, op, index);
    size = next;
  }
  return clip(job, work, settings, size);
}

/** The filters (and inputs, and files) of the operations that change the picture. */
function addPictureWork(work: Work, op: VideoOperation, index: number, size: Size, next: Size): void {
  const { graph } = work;
  switch (op.op) {
    case 'crop':
      graph.video(cropFilter(cropRegion(size, op.aspectRatio, focusPoint(op.focus), 'even')), index);
      return;
    case 'resize':
      for (const filter of resizeFilters(op, next)) graph.video(filter, index);
      return;
    case 'pad':
      graph.video(padFilter(op, size, next), index);
      return;
    case 'rotate':
      for (const filter of rotateFilters(op)) graph.video(filter, index);
      return;
    case 'fps':
      graph.video(`fps=${op.value}`, index);
      return;
    case 'text': {
      const names = { font: `font-${index}.ttf`, text: `text-${index}.txt` };
      const burnt = textFilter(op, size, names);
      work.files.push(
        { name: names.font, link: { path: resolve(op.font.path), owner: index } },
        { name: names.text, contents: burnt.lines },
      );
      graph.video(burnt.filter, index);
      return;
    }
    case 'overlay': {
      work.sideInputs.push({ path: resolve(op.image.path), owner: index });
      const filters = overlayFilters(op);
      graph.overlay(work.sideInputs.length, filters.prepare, filters.overlay, index);
      return;
    }
  }
}

/** What the time, sound and format operations settle for the whole run. */
function settle(settings: Settings, op: VideoOperation, index: number): void {
  switch (op.op) {
    case 'trim': {
      const from = settings.start + op.start;
      if (from >= settings.end) {
        const length = seconds(settings.end - settings.start);
        const reason = `starts at ${seconds(op.start)} s, past the end of a clip ${length} s long`;
        throw new DeriveError({ index, name: op.op }, reason);
      }
      settings.start = from;
      if (op.duration !== null) settings.end = Math.min(settings.end, from + op.duration);
      return;
    }
    case 'mute':
      settings.sound = { kind: 'none' };
      return;
    case 'audio':
      settings.sound = { kind: 'file', path: resolve(op.file.path), volume: op.volume, owner: index };
      return;
    case 'format':
      if (op.type !== 'mp4' && op.type !== 'webm') {
        throw new DeriveError(
          { index, name: op.op },
          `a clip cannot be made a ${op.type}: take a frame first`,
        );
      }
      settings.format = { type: op.type, quality: op.quality, maxBytes: op.maxBytes, at: index };
      return;
  }
}

/** One PNG frame at `at` seconds into the kept part; the operations after it are the image side's. */
function still(
  job: ClipJob,
  work: Work,
  settings: Settings,
  at: number,
  index: number,
  size: Size,
): FfmpegRun {
  const length = settings.end - settings.start;
  if (at >= length) {
    const reason = `at ${seconds(at)} s is past the end of a clip ${seconds(length)} s long`;
    throw new DeriveError({ index, name: 'frame' }, reason);
  }
  work.graph.video('setsar=1', null);
  const args = [
    ...inputArguments(job, settings.start + at, null, work),
    ...['-frames:v', '1', '-c:v', 'png', '-update', '1', STILL_FILE],
  ];
  const rest = job.operations.slice(index + 1);
  return { ...work, args, seconds: 0, product: { kind: 'still', file: STILL_FILE, size, rest } };
}

function clip(job: ClipJob, work: Work, settings: Settings, size: Size): FfmpegRun {
  const { start, end, sound, format } = settings;
  const length = end - start;
  work.graph.video('setsar=1', null);
  const soundArgs = soundArguments(sound, work, length);
  const type = format?.type ?? 'mp4';
  const args = [
    ...inputArguments(job, start, end < job.source.durationSeconds ? length : null, work),
    ...soundArgs,
    ...encoderArguments(type, format?.quality ?? null, sound.kind !== 'none'),
    ...['-threads', String(job.threads), '-progress', 'pipe:1', '-nostats', resolve(job.outputPath)],
  ];
  const product: FfmpegProduct = {
    kind: 'clip',
    format: type,
    size,
    maxBytes: format?.maxBytes ?? null,
    formatAt: format?.at ?? null,
  };
  return { ...work, args, seconds: length, product };
}

/** The clip's size on the even grid: geometry rounds odd sides down before the first operation. */
function evenSize(size: Size): Size {
  const walk = sizeAfter(size, [], 'even');
  return walk.ok ? walk.size : size;
}

/** Everything up to the picture's mapping: the clip from `start` (for `duration`), the side inputs, the graph. */
function inputArguments(job: ClipJob, start: number, duration: number | null, work: Work): string[] {
  const threads = String(job.threads);
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-filter_complex_threads', threads],
    ...(start > 0 ? ['-ss', seconds(start)] : []),
    ...(duration === null ? [] : ['-t', seconds(duration)]),
    ...['-threads', threads, '-i', resolve(job.inputPath)],
    ...work.sideInputs.flatMap((input) => ['-i', input.path]),
    ...['-filter_complex', work.graph.text(), '-map', `[${GRAPH_OUT.picture}]`],
  ];
}

/** Maps the sound: the clip's own, none, or a file's cut (or padded with silence) to the clip's length. */
function soundArguments(sound: Sound, work: Work, length: number): string[] {
  if (sound.kind === 'none') return ['-an'];
  if (sound.kind === 'source') return ['-map', '0:a:0'];
  work.sideInputs.push({ path: sound.path, owner: sound.owner });
  const duration = seconds(length);
  work.graph.audio(
    work.sideInputs.length,
    [`atrim=end=${duration}`, `apad=whole_dur=${duration}`, `volume=${sound.volume}`],
    sound.owner,
  );
  return ['-map', `[${GRAPH_OUT.sound}]`];
}

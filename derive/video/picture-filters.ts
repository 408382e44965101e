/**
 * The ffmpeg filters that carry out each picture operation, sized by derive/geometry.ts so what
 * ffmpeg makes is what validate predicted. Numbers are worked out here rather than left to ffmpeg
 * expressions wherever the size is known, so the arguments say exactly what is cut.
 */
import { ANCHOR_AT, type Region, type Size } from '../geometry.ts';
import type { Focus, Operation } from '../operations.ts';
import { wrapText } from './wrap-text.ts';

type Of<Name extends Operation['op']> = Extract<Operation, { op: Name }>;

/** ffmpeg's spelling of `#rrggbb[aa]`: `0xrrggbb[aa]` (a `#` would need quoting in some places). */
export const ffmpegColour = (colour: string): string => `0x${colour.slice(1)}`;

/**
 * sharp's attention and entropy strategies look at the picture; ffmpeg has nothing like them for
 * a clip (and a clip's subject moves), so a clip is cut at the centre for both.
 */
export function focusPoint(focus: Focus): { readonly x: number; readonly y: number } {
  return typeof focus === 'string' ? { x: 0.5, y: 0.5 } : focus;
}

/** `exact`: without it ffmpeg moves a 4:2:0 crop's corner to even pixels, off geometry's region. */
export const cropFilter = (region: Region): string =>
  `crop=${region.width}:${region.height}:${region.left}:${region.top}:exact=1`;

/** Scales to `target`, which geometry's `resized()` gave for this fit. */
export function resizeFilters(op: Of<'resize'>, target: Size): string[] {
  const { width, height } = target;
  const both = op.width !== null && op.height !== null;
  if (both && op.fit === 'cover') {
    return [`scale=${width}:${height}:force_original_aspect_ratio=increase`, `crop=${width}:${height}`];
  }
  if (both && op.fit === 'pad') {
    return [
      `scale=${width}:${height}:force_original_aspect_ratio=decrease:force_divisible_by=2`,
      `pad=${width}:${height}:-1:-1:color=${ffmpegColour(op.background)}`,
    ];
  }
  return [`scale=${width}:${height}`];
}

export function padFilter(op: Of<'pad'>, from: Size, to: Size): string {
  const at = ANCHOR_AT[op.position];
  const left = Math.round((to.width - from.width) * at.x);
  const top = Math.round((to.height - from.height) * at.y);
  return `pad=${to.width}:${to.height}:${left}:${top}:color=${ffmpegColour(op.background)}`;
}

/** Clockwise, as sharp turns a still. */
export function rotateFilters(op: Of<'rotate'>): string[] {
  if (op.degrees === 90) return ['transpose=clock'];
  if (op.degrees === 270) return ['transpose=cclock'];
  return ['hflip', 'vflip'];
}

/** An ffmpeg expression placing a thing `fraction` of the way across `room`, `inset` from the edges. */
function along(fraction: number, room: string, inset: number): string {
  if (fraction === 0) return `${inset}`;
  if (fraction === 1) return `${room}-${inset}`;
  return `(${room})/2`;
}

export interface BurntText {
  readonly filter: string;
  /** What drawtext reads from `textfile`: the value, broken into lines that fit the frame. */
  readonly lines: string;
}

/**
 * drawtext reading the words from a file (`textfile`) and `expansion=none`: user text reaches the
 * frame as typed, with no filter-graph escaping and no `%{...}` expansion. Lines stay left-aligned
 * inside their block: per-line centring (`text_align`) is newer than Debian 12's ffmpeg 5.1.
 */
export function textFilter(op: Of<'text'>, frame: Size, files: { font: string; text: string }): BurntText {
  const padding = op.box === null ? 0 : Math.round(op.size * 0.3);
  const inset = op.margin + padding;
  const at = ANCHOR_AT[op.position];
  const options = [
    `fontfile=${files.font}`,
    `textfile=${files.text}`,
    'expansion=none',
    `fontsize=${op.size}`,
    `fontcolor=${ffmpegColour(op.colour)}`,
    `line_spacing=${Math.round(op.size * 0.2)}`,
    `x=${along(at.x, 'w-text_w', inset)}`,
    `y=${along(at.y, 'h-text_h', inset)}`,
    ...(op.box === null ? [] : ['box=1', `boxcolor=${ffmpegColour(op.box)}`, `boxborderw=${padding}`]),
  ];
  const lines = wrapText(op.value, op.size, frame.width - 2 * inset).join('\n');
  return { filter: `drawtext=${options.join(':')}`, lines };
}

export interface OverlayFilters {
  /** For the logo's own input: its size and opacity. */
  readonly prepare: readonly string[];
  readonly overlay: string;
}

export function overlayFilters(op: Of<'overlay'>): OverlayFilters {
  const at = ANCHOR_AT[op.position];
  return {
    prepare: [
      ...(op.width === null ? [] : [`scale=${op.width}:-1`]),
      'format=rgba',
      ...(op.opacity < 1 ? [`colorchannelmixer=aa=${op.opacity}`] : []),
    ],
    overlay: `overlay=x=${along(at.x, 'W-w', op.margin)}:y=${along(at.y, 'H-h', op.margin)}`,
  };
}

/**
 * What an output looks like, read from the prediction's input and the model's defaults: the
 * aspect ratio (PNG pixel size, MP4 track size), the video resolution and duration.
 */
import { MODELS, type ModelLabel } from '../../api/catalogue/index.ts';

export interface Size {
  readonly width: number;
  readonly height: number;
}

type Input = Readonly<Record<string, unknown>>;

function setting(label: ModelLabel, input: Input, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = input[name] ?? MODELS[label].defaults[name];
    if (value !== undefined) return String(value);
  }
  return undefined;
}

const NAMED_RATIOS: Readonly<Record<string, string>> = { landscape: '16:9', portrait: '9:16' };

/** "W:H". I1's default `match_input_image` cannot see the input's pixels here, so it is square. */
export function aspectRatioOf(label: ModelLabel, input: Input): string {
  const value = setting(label, input, 'aspect_ratio') ?? (MODELS[label].kind === 'video' ? '16:9' : '1:1');
  const ratio = NAMED_RATIOS[value] ?? value;
  return /^\d+:\d+$/.test(ratio) ? ratio : '1:1';
}

/** Fits the ratio in a `longSide` square: 16:9 at 512 → 512×288. */
export function fitRatio(ratio: string, longSide: number): Size {
  const [w, h] = ratio.split(':').map(Number) as [number, number];
  return w >= h
    ? { width: longSide, height: Math.max(1, Math.round((longSide * h) / w)) }
    : { width: Math.max(1, Math.round((longSide * w) / h)), height: longSide };
}

/** Track size of a video: the short side is the resolution's height (720p when not stated). */
export function videoSizeOf(label: ModelLabel, input: Input): Size {
  const lines = Number(/^(\d+)p$/.exec(setting(label, input, 'resolution') ?? '')?.[1] ?? 720);
  const [w, h] = aspectRatioOf(label, input).split(':').map(Number) as [number, number];
  const long = Math.round((lines * Math.max(w, h)) / Math.min(w, h));
  return w >= h ? { width: long, height: lines } : { width: lines, height: long };
}

/** Seconds of video asked for (V6 has no duration parameter: 6 s, our choice). */
export function durationOf(label: ModelLabel, input: Input): number {
  return Number(setting(label, input, 'duration', 'seconds') ?? 6);
}

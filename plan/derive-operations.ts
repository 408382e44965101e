/**
 * One item of a spec's `derive:` list → the Operation the worker runs (derive/operations.ts):
 * defaults filled in, a preset expanded to its resize, sizes in bytes, the files it reads checked,
 * hashed and made absolute. A text's value stays a template here: it is rendered per parent job
 * (plan/derivatives.ts). Problems are reported at the option they are about.
 */
import { createRequire } from 'node:module';
import type { Asset, Operation } from '../derive/operations.ts';
import {
  BUILT_IN_PRESETS,
  DEFAULT_BACKGROUND,
  DEFAULT_OVERLAY,
  DEFAULT_TEXT,
  type DeriveItem,
  type DeriveItemName,
  SIZE,
} from './derive-spec.ts';
import {
  bundledFile,
  type FileKind,
  FONT,
  type LocalFile,
  type LocalFiles,
  OVERLAY_IMAGE,
  SOUND,
} from './local-files.ts';
import type { Report } from './report.ts';
import type { CampaignSpec } from './schema.ts';
import type { DataPath } from './source.ts';
import { didYouMean } from './suggest.ts';

type Options = { [K in DeriveItemName]-?: NonNullable<DeriveItem[K]> };
type Normalise<K extends DeriveItemName> = (
  options: Options[K],
  at: DataPath,
  context: Context,
) => Operation | null;

const DEFAULT_FONT = '@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf';
/** Read and hashed once a process (about 5 MB): it is ours, and does not change while we run. */
let defaultFont: LocalFile | undefined;

/** What normalising needs beyond the item: the spec's presets and a way to read files. */
export class Context {
  readonly presets: Readonly<Record<string, { readonly width: number; readonly height: number }>>;
  private readonly files: LocalFiles;
  private readonly report: Report;

  constructor(spec: CampaignSpec, files: LocalFiles, report: Report) {
    this.presets = { ...BUILT_IN_PRESETS, ...spec.presets };
    this.files = files;
    this.report = report;
  }

  /** The spec's file at `at`, or null (reported there) when it is missing, outside or not of its kind. */
  asset(value: string, kind: FileKind, at: DataPath): Asset | null {
    const file = this.files.resolve(value, kind);
    return file.ok ? { path: file.path, sha256: file.sha256 } : this.problem(at, file.message);
  }

  /** Noto Sans JP Bold, which covers Latin, accented and Japanese text. */
  defaultFont(at: DataPath): Asset | null {
    defaultFont ??= bundledFile(createRequire(import.meta.url).resolve(DEFAULT_FONT), FONT);
    if (defaultFont.ok) return { path: defaultFont.path, sha256: defaultFont.sha256 };
    return this.problem(at, `the default font cannot be read (${defaultFont.message}); give a font:`);
  }

  problem(at: DataPath, message: string): null {
    this.report(at, message);
    return null;
  }
}

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1_000, mb: 1_000_000, gb: 1_000_000_000 };

/** `500kb` → 500000; a kb is 1,000 bytes, so a file made to fit fits a limit read either way. */
function bytesOf(size: number | string): number {
  if (typeof size === 'number') return size;
  const [, amount, unit] = SIZE.exec(size) ?? [];
  return Math.max(1, Math.floor(Number(amount) * (UNITS[String(unit).toLowerCase()] ?? 1)));
}

const NORMALISE: { [K in DeriveItemName]: Normalise<K> } = {
  crop: ({ aspect_ratio, focus }) => {
    const [width, height] = aspect_ratio.split(':').map(Number);
    return { op: 'crop', aspectRatio: [width ?? 1, height ?? 1], focus: focus ?? 'centre' };
  },
  resize: ({ width, height, fit, background }, at, context) =>
    width === undefined && height === undefined
      ? context.problem(at, 'resize needs width, height or both (one alone keeps the proportions)')
      : {
          op: 'resize',
          width: width ?? null,
          height: height ?? null,
          fit: fit ?? 'cover',
          background: background ?? DEFAULT_BACKGROUND,
        },
  pad: ({ width, height, position, background }) => ({
    op: 'pad',
    width,
    height,
    position: position ?? 'centre',
    background: background ?? DEFAULT_BACKGROUND,
  }),
  rotate: ({ degrees }) => ({ op: 'rotate', degrees }),
  text: (options, at, context) => {
    const font =
      options.font === undefined
        ? context.defaultFont(at)
        : context.asset(options.font, FONT, [...at, 'font']);
    return font === null
      ? null
      : {
          op: 'text',
          value: options.value,
          position: options.position ?? DEFAULT_TEXT.position,
          size: options.size ?? DEFAULT_TEXT.size,
          colour: options.colour ?? DEFAULT_TEXT.colour,
          box: options.box ?? null,
          font,
          margin: options.margin ?? DEFAULT_TEXT.margin,
        };
  },
  overlay: (options, at, context) => {
    const image = context.asset(options.image, OVERLAY_IMAGE, [...at, 'image']);
    return image === null
      ? null
      : {
          op: 'overlay',
          image,
          position: options.position ?? DEFAULT_OVERLAY.position,
          width: options.width ?? null,
          opacity: options.opacity ?? DEFAULT_OVERLAY.opacity,
          margin: options.margin ?? DEFAULT_OVERLAY.margin,
        };
  },
  format: ({ type, quality, max_bytes }) => ({
    op: 'format',
    type,
    quality: quality ?? null,
    maxBytes: max_bytes === undefined ? null : bytesOf(max_bytes),
  }),
  trim: ({ start, duration }) => ({ op: 'trim', start: start ?? 0, duration: duration ?? null }),
  fps: ({ value }) => ({ op: 'fps', value }),
  mute: () => ({ op: 'mute' }),
  audio: ({ file, volume }, at, context) => {
    const sound = context.asset(file, SOUND, [...at, 'file']);
    return sound === null ? null : { op: 'audio', file: sound, volume: volume ?? 1 };
  },
  frame: ({ at: seconds }) => ({ op: 'frame', at: seconds }),
  preset: (name, at, context) => {
    const size = Object.hasOwn(context.presets, name) ? context.presets[name] : undefined;
    if (size === undefined) {
      const names = Object.keys(context.presets);
      return context.problem(
        at,
        `unknown preset "${name}"${didYouMean(name, names)}; presets: ${names.join(', ')} (add one under presets:)`,
      );
    }
    return { op: 'resize', ...size, fit: 'cover', background: DEFAULT_BACKGROUND };
  },
};

/** The item's one operation, normalised; null when a problem was reported at `at` (the item's options). */
export function normalise<K extends DeriveItemName>(
  name: K,
  options: Options[K],
  at: DataPath,
  context: Context,
): Operation | null {
  const make: Normalise<K> = NORMALISE[name];
  return make(options, at, context);
}

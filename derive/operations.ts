/**
 * A derivative's operations as the plan stores them and the worker carries them out: resolved
 * from the spec's `derive:` list (plan/ does that: templates rendered, presets expanded, sizes in
 * bytes, asset paths made absolute and their bytes hashed), so what runs is exactly what the job's
 * key covers. The spec's own spelling and its file:line:col problems are plan/'s; this is the
 * worker's side of the contract, parsed (never cast) when a plan is read back.
 *
 * Images go through sharp (derive/image/), clips through ffmpeg (derive/video/). A `frame` turns
 * a clip into a still: what follows it is image work.
 */
import { z } from 'zod';

/** `#rrggbb` or `#rrggbbaa`. */
export const Colour = z.string().regex(/^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/);

/** Where a text or an overlay sits on the frame. */
export const Anchor = z.enum([
  'top-left',
  'top',
  'top-right',
  'left',
  'centre',
  'right',
  'bottom-left',
  'bottom',
  'bottom-right',
]);
export type Anchor = z.infer<typeof Anchor>;

/** What a crop keeps: the middle, sharp's attention or entropy strategy, or a point (0–1 of width, height). */
export const Focus = z.union([
  z.enum(['centre', 'attention', 'entropy']),
  z.strictObject({ x: z.number().min(0).max(1), y: z.number().min(0).max(1) }),
]);
export type Focus = z.infer<typeof Focus>;

/** A local file the operation reads (a logo, a font, a sound), with the sha256 the key covers. */
export const Asset = z.strictObject({ path: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export type Asset = z.infer<typeof Asset>;

const Pixels = z.int().min(1).max(16_384);
const Seconds = z.number().min(0).max(86_400);

export const ImageFormat = z.enum(['jpeg', 'png', 'webp', 'avif']);
export type ImageFormat = z.infer<typeof ImageFormat>;
export const VideoFormat = z.enum(['mp4', 'webm']);
export type VideoFormat = z.infer<typeof VideoFormat>;

/** Cuts the largest region of this aspect ratio that fits. */
export const Crop = z.strictObject({
  op: z.literal('crop'),
  aspectRatio: z.tuple([z.int().min(1), z.int().min(1)]),
  focus: Focus,
});
/** To a width, a height or both; `pad` letterboxes with `background`. At least one of the two is set. */
export const Resize = z.strictObject({
  op: z.literal('resize'),
  width: Pixels.nullable(),
  height: Pixels.nullable(),
  fit: z.enum(['cover', 'contain', 'pad']),
  background: Colour,
});
/** Grows the canvas to exactly this size, the picture at `position`. */
export const Pad = z.strictObject({
  op: z.literal('pad'),
  width: Pixels,
  height: Pixels,
  position: Anchor,
  background: Colour,
});
export const Rotate = z.strictObject({
  op: z.literal('rotate'),
  degrees: z.union([z.literal(90), z.literal(180), z.literal(270)]),
});
/** A line (or lines: `\n`) of text, laid out with a real font; `size` in pixels of the output frame. */
export const Text = z.strictObject({
  op: z.literal('text'),
  value: z.string().min(1),
  position: Anchor,
  size: Pixels,
  colour: Colour,
  /** A box behind the text, or null for none. */
  box: Colour.nullable(),
  font: Asset,
  /** Distance from the frame's edges, pixels. */
  margin: z.int().min(0).max(4_096),
});
/** An image (a logo) over the frame; `width` in pixels of the output, null for its own. */
export const Overlay = z.strictObject({
  op: z.literal('overlay'),
  image: Asset,
  position: Anchor,
  width: Pixels.nullable(),
  opacity: z.number().min(0).max(1),
  margin: z.int().min(0).max(4_096),
});
/** The file's type; `maxBytes`: the image is re-encoded at lower quality until it fits, or fails. */
export const Format = z.strictObject({
  op: z.literal('format'),
  type: z.union([ImageFormat, VideoFormat]),
  quality: z.int().min(1).max(100).nullable(),
  maxBytes: z.int().min(1).nullable(),
});
export const Trim = z.strictObject({
  op: z.literal('trim'),
  start: Seconds,
  duration: Seconds.positive().nullable(),
});
export const Fps = z.strictObject({ op: z.literal('fps'), value: z.number().positive().max(240) });
export const Mute = z.strictObject({ op: z.literal('mute') });
/** Replaces the clip's sound with a file's, cut to the clip's length. */
export const Audio = z.strictObject({
  op: z.literal('audio'),
  file: Asset,
  volume: z.number().min(0).max(4),
});
/** The still at `at` seconds: the operations after it are image operations. */
export const Frame = z.strictObject({ op: z.literal('frame'), at: Seconds });

export const Operation = z.discriminatedUnion('op', [
  Crop,
  Resize,
  Pad,
  Rotate,
  Text,
  Overlay,
  Format,
  Trim,
  Fps,
  Mute,
  Audio,
  Frame,
]);
export type Operation = z.infer<typeof Operation>;
export type OperationName = Operation['op'];

/** Operations a still takes (sharp). */
export const IMAGE_OPERATIONS = ['crop', 'resize', 'pad', 'rotate', 'text', 'overlay', 'format'] as const;
/** Operations a clip takes (ffmpeg); `frame` ends them. */
export const VIDEO_OPERATIONS = [
  'crop',
  'resize',
  'pad',
  'rotate',
  'text',
  'overlay',
  'format',
  'trim',
  'fps',
  'mute',
  'audio',
  'frame',
] as const;

export type ImageOperation = Extract<Operation, { op: (typeof IMAGE_OPERATIONS)[number] }>;
export type VideoOperation = Extract<Operation, { op: (typeof VIDEO_OPERATIONS)[number] }>;

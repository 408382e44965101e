/**
 * A derive step's `derive:` list as the spec writes it: one-key maps (`- crop: { aspect_ratio:
 * "1:1" }`), options in the spec's snake_case, defaults left out. plan/derive-operations.ts turns
 * each into the worker's normalised Operation (derive/operations.ts), whose ranges these borrow so
 * the spec refuses exactly what the worker could not run. Which operation an item is, and the
 * checks that need the whole list or the parent step, are plan/derive-steps.ts's: an unknown
 * operation is reported there, with a suggestion, rather than as an unknown field.
 */
import { z } from 'zod';
import {
  Anchor,
  Audio,
  Colour,
  Focus,
  Format,
  Fps,
  Frame,
  ImageFormat,
  Overlay,
  Pad,
  Text,
  Trim,
  VideoFormat,
} from '../derive/operations.ts';
import { describe } from './shape-problems.ts';
import { didYouMean, quoteList } from './suggest.ts';

export const DEFAULT_BACKGROUND = '#000000';
export const DEFAULT_TEXT = { position: 'bottom', size: 48, colour: '#ffffff', margin: 32 } as const;
export const DEFAULT_OVERLAY = { position: 'top-right', opacity: 1, margin: 32 } as const;

/** Resizes (fit: cover) to the sizes the places a campaign posts to ask for; `presets:` adds or overrides. */
export const BUILT_IN_PRESETS: Readonly<Record<string, { readonly width: number; readonly height: number }>> =
  {
    'instagram-square': { width: 1080, height: 1080 },
    'instagram-portrait': { width: 1080, height: 1350 },
    'instagram-story': { width: 1080, height: 1920 },
    reels: { width: 1080, height: 1920 },
    'facebook-feed': { width: 1200, height: 630 },
    'linkedin-banner': { width: 1200, height: 627 },
    'display-banner': { width: 1200, height: 628 },
    'youtube-thumbnail': { width: 1280, height: 720 },
    'x-post': { width: 1600, height: 900 },
  };

const Pixels = Pad.shape.width;

/** The contract's colour, said the way a person writes one (zod's own message names a regex). */
const SpecColour = z.string().superRefine((value, context) => {
  if (!Colour.safeParse(value).success)
    context.addIssue({
      code: 'custom',
      message: `must be a colour "#rrggbb" or "#rrggbbaa" (alpha last), not ${describe(value)}`,
    });
});

const FOCUS_NAMES = Focus.options[0].options;
const SpecFocus = z.union(Focus.options, {
  error: ({ input }) =>
    typeof input === 'object' && input !== null
      ? 'must be { x, y }, each a number from 0 to 1 (0, 0 the top-left corner)'
      : `is ${describe(input)}, which is not allowed${typeof input === 'string' ? didYouMean(input, FOCUS_NAMES) : ''}; allowed: ${quoteList(FOCUS_NAMES)} or { x, y }, each from 0 to 1`,
});

const LocalPath = z.string().min(1).meta({ description: 'A file relative to the spec (under its folder).' });

const Crop = z.strictObject({
  aspect_ratio: z.string().regex(/^[1-9]\d{0,4}:[1-9]\d{0,4}$/, {
    error: 'must be a ratio "W:H" of whole numbers, such as "1:1" or "9:16"',
  }),
  focus: SpecFocus.optional().meta({
    description: 'What the crop keeps: centre (default), attention, entropy or { x, y } from 0 to 1.',
  }),
});

const Resize = z.strictObject({
  width: Pixels.optional(),
  height: Pixels.optional(),
  fit: z
    .enum(['cover', 'contain', 'pad'])
    .optional()
    .meta({ description: 'cover (default): fill and cut; contain: fit inside; pad: fit and letterbox.' }),
  background: SpecColour.optional().meta({
    description: `Letterbox colour (default ${DEFAULT_BACKGROUND}).`,
  }),
});

const SpecPad = z.strictObject({
  width: Pixels,
  height: Pixels,
  position: Anchor.optional().meta({ description: 'Where the picture sits (default centre).' }),
  background: SpecColour.optional().meta({ description: `Default ${DEFAULT_BACKGROUND}.` }),
});

const Rotate = z.strictObject({ degrees: z.literal([90, 180, 270]) });

const SpecText = z.strictObject({
  value: z
    .string()
    .min(1, { error: 'is empty: give the text to write' })
    .meta({ description: 'The text; may hold {{name}} and {{row.<column>}} templates.' }),
  position: Anchor.optional().meta({ description: `Default ${DEFAULT_TEXT.position}.` }),
  size: Text.shape.size.optional().meta({ description: `Pixels (default ${DEFAULT_TEXT.size}).` }),
  colour: SpecColour.optional().meta({ description: `Default ${DEFAULT_TEXT.colour}.` }),
  box: SpecColour.nullable()
    .optional()
    .meta({ description: 'A box behind the text in this colour (default none).' }),
  font: LocalPath.optional().meta({
    description: 'A TrueType or OpenType file (default Noto Sans JP Bold).',
  }),
  margin: Text.shape.margin
    .optional()
    .meta({ description: `Pixels from the edges (default ${DEFAULT_TEXT.margin}).` }),
});

const SpecOverlay = z.strictObject({
  image: LocalPath,
  position: Anchor.optional().meta({ description: `Default ${DEFAULT_OVERLAY.position}.` }),
  width: Pixels.optional().meta({ description: 'Pixels (default the image’s own).' }),
  opacity: Overlay.shape.opacity
    .optional()
    .meta({ description: `0 to 1 (default ${DEFAULT_OVERLAY.opacity}).` }),
  margin: Overlay.shape.margin
    .optional()
    .meta({ description: `Pixels (default ${DEFAULT_OVERLAY.margin}).` }),
});

/** "500kb", "2mb", "1.5 MB" or a number of bytes; a kb is 1,000 bytes. */
export const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)$/i;
const Bytes = z.union([
  z.int().min(1),
  z.string().regex(SIZE, {
    error: 'must be a size: a number of bytes, or a text such as "500kb" or "2mb" (a kb is 1,000 bytes)',
  }),
]);

const SpecFormat = z.strictObject({
  type: z.enum([...ImageFormat.options, ...VideoFormat.options]),
  quality: Format.shape.quality.unwrap().optional().meta({ description: '1 to 100 (stills only).' }),
  max_bytes: Bytes.optional().meta({
    description: 'Stills only: re-encoded at lower quality until the file fits ("500kb", "2mb").',
  }),
});

const SpecTrim = z.strictObject({
  start: Trim.shape.start.optional().meta({ description: 'Seconds (default 0).' }),
  duration: Trim.shape.duration.unwrap().optional().meta({ description: 'Seconds (default: to the end).' }),
});

const Mute = z.union([z.literal(true), z.strictObject({})], { error: 'must be true or {}' });

const SpecAudio = z.strictObject({
  file: LocalPath,
  volume: Audio.shape.volume.optional().meta({ description: '0 to 4 (default 1).' }),
});

const PRESET_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * One item of `derive:`. Unknown keys are let through here so plan/derive-steps.ts can say
 * "unknown operation" with a suggestion, and check that each item holds exactly one.
 */
export const DeriveItem = z
  .strictObject({
    crop: Crop.optional(),
    resize: Resize.optional(),
    pad: SpecPad.optional(),
    rotate: Rotate.optional(),
    text: SpecText.optional(),
    overlay: SpecOverlay.optional(),
    format: SpecFormat.optional(),
    trim: SpecTrim.optional(),
    fps: z.strictObject({ value: Fps.shape.value }).optional(),
    mute: Mute.optional(),
    audio: SpecAudio.optional(),
    frame: z.strictObject({ at: Frame.shape.at }).optional(),
    preset: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'A resize (fit: cover) by name: built in or under presets:.' }),
  })
  .catchall(z.unknown())
  .meta({ description: 'One operation: a map of one key, its name, to its options.' });
export type DeriveItem = z.infer<typeof DeriveItem>;

/** The operations an item may name, in the order the docs list them. */
export const DERIVE_ITEM_NAMES = DeriveItem.keyof().options;
export type DeriveItemName = (typeof DERIVE_ITEM_NAMES)[number];

export const DeriveList = z.array(DeriveItem).min(1, { error: 'must list at least one operation' }).meta({
  description:
    'Operations applied in order to each output of the from: step, on the worker, at no cost: crop, resize, pad, rotate, text, overlay, format, preset; for clips also trim, fps, mute, audio, frame (docs/spec-format.md, "Derive steps").',
});
export type DeriveList = z.infer<typeof DeriveList>;

export const Presets = z
  .record(
    z.string().regex(PRESET_NAME, { error: 'a preset name is lower-case letters, digits and "-"' }),
    z.strictObject({ width: Pixels, height: Pixels }),
  )
  .meta({
    description:
      'Named sizes for `preset:` operations (resize, fit cover), beside or over the built-in ones.',
  });

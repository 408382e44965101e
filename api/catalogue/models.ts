/**
 * The 11 models of service-spec.md part 4.2, exactly as published, with their price rules (part 8.3).
 * Quirks of the published spec are kept explicit rather than smoothed over:
 * - V1 prices 720p, but 720p is not in V1's resolution enum (so no valid V1 input can be 720p).
 * - I1's default aspect ratio `match_input_image` lies outside its own enum: it is a default only.
 * - V2's `generate_audio` is accepted and sets the price, though it is not in the parameter table.
 * - V5's price rule is not shown: its local price is unknown and the service's estimate decides.
 * - I3 has no size parameter, so it always prices at the 1K/2K rate.
 * - V4 lists text-to-video, but `start_image` is required: in practice it is image-to-video only.
 * Defaults that the spec leaves "not shown" are our documented choices (docs/service-assumptions.md);
 * they live in `assumedDefaults` so that pricing and the emulator agree, and are never sent.
 */
import { z } from 'zod';
import { type Micros, usd } from '../money.ts';

export const MODEL_LABELS = ['V1', 'V2', 'V3', 'V4', 'V5', 'V6', 'I1', 'I2', 'I3', 'I4', 'I5'] as const;
export const ModelLabel = z.enum(MODEL_LABELS);
export type ModelLabel = z.infer<typeof ModelLabel>;

export type MediaKind = 'video' | 'image';
export type Mode = 'text-to-video' | 'image-to-video' | 'text-to-image' | 'image-to-image';

/** Longest prompt accepted (not shown in the spec; our choice, enforced by the emulator too). */
export const MAX_PROMPT_LENGTH = 10_000;

const prompt = z.string().min(1, 'prompt must not be empty').max(MAX_PROMPT_LENGTH);
/** An image-valued field: an http(s) URL, a `data:image/...;base64,` URI or raw base64. */
const image = z.string().min(1, 'image must not be empty');

export interface ModelDefinition {
  readonly label: ModelLabel;
  readonly kind: MediaKind;
  readonly modes: readonly Mode[];
  /** Strict: a parameter the spec does not list is rejected. */
  readonly input: z.ZodObject;
  /** Every input field that takes an image, in the order a chained parent output should fill them. */
  readonly imageFields: readonly string[];
  /** Defaults the spec states (and, where it is silent, our documented choices). Never sent. */
  readonly defaults: Readonly<Record<string, string | boolean>>;
  /** Price in micro-dollars for a validated input, or null when the rule is not published (V5). */
  price(input: Readonly<Record<string, unknown>>): Micros | null;
}

type Input = Readonly<Record<string, unknown>>;

function setting(input: Input, defaults: ModelDefinition['defaults'], name: string): string {
  return String(input[name] ?? defaults[name]);
}

function perSecond(rate: Micros, seconds: string): Micros {
  return rate * Number(seconds);
}

/** The spec: "I4: same parameters as I3". */
const I3_I4_INPUT = z.strictObject({
  prompt,
  aspect_ratio: z.enum(['4:3', '3:4', '16:9', '9:16', '1:1']).optional(),
});

const V1_RATES: Record<string, Micros> = { '480p': usd('0.05'), '720p': usd('0.09'), '1080p': usd('0.23') };

function define(definition: ModelDefinition): ModelDefinition {
  return definition;
}

export const MODELS: Readonly<Record<ModelLabel, ModelDefinition>> = {
  V1: define({
    label: 'V1',
    kind: 'video',
    modes: ['text-to-video', 'image-to-video'],
    input: z.strictObject({
      prompt,
      image: image.optional(),
      fps: z.enum(['24']).optional(),
      duration: z.enum(['5', '10']).optional(),
      resolution: z.enum(['480p', '1080p']).optional(),
      aspect_ratio: z.enum(['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', '9:21']).optional(),
      camera_fixed: z.boolean().optional(),
    }),
    imageFields: ['image'],
    defaults: { fps: '24', duration: '5', resolution: '1080p', aspect_ratio: '16:9' },
    price(input) {
      const rate = V1_RATES[setting(input, this.defaults, 'resolution')]!;
      return perSecond(rate, setting(input, this.defaults, 'duration'));
    },
  }),
  V2: define({
    label: 'V2',
    kind: 'video',
    modes: ['text-to-video', 'image-to-video'],
    input: z.strictObject({
      prompt,
      image: image.optional(),
      aspect_ratio: z.enum(['16:9', '9:16']).optional(),
      duration: z.enum(['4', '6', '8']).optional(),
      resolution: z.enum(['720p', '1080p']).optional(),
      generate_audio: z.boolean().optional(),
    }),
    imageFields: ['image'],
    defaults: { aspect_ratio: '16:9', duration: '8', resolution: '720p', generate_audio: true },
    price(input) {
      const audio = (input.generate_audio ?? this.defaults.generate_audio) === true;
      return perSecond(audio ? usd('0.22') : usd('0.15'), setting(input, this.defaults, 'duration'));
    },
  }),
  V3: define({
    label: 'V3',
    kind: 'video',
    modes: ['text-to-video', 'image-to-video'],
    input: z.strictObject({
      prompt,
      seconds: z.enum(['4', '8', '12']),
      aspect_ratio: z.enum(['landscape', 'portrait']),
      input_reference: image.optional(),
    }),
    imageFields: ['input_reference'],
    defaults: {},
    price(input) {
      return perSecond(usd('0.15'), setting(input, this.defaults, 'seconds'));
    },
  }),
  V4: define({
    label: 'V4',
    kind: 'video',
    modes: ['text-to-video', 'image-to-video'],
    input: z.strictObject({
      prompt,
      start_image: image,
      mode: z.enum(['standard', 'pro']).optional(),
      duration: z.enum(['5', '10']).optional(),
    }),
    imageFields: ['start_image'],
    defaults: { mode: 'standard', duration: '5' },
    price(input) {
      const rate = setting(input, this.defaults, 'mode') === 'pro' ? usd('0.13') : usd('0.05');
      return perSecond(rate, setting(input, this.defaults, 'duration'));
    },
  }),
  V5: define({
    label: 'V5',
    kind: 'video',
    modes: ['text-to-video', 'image-to-video'],
    input: z.strictObject({
      prompt,
      duration: z.enum(['6', '10']).optional(),
      resolution: z.enum(['512p', '768p', '1080p']).optional(),
      first_frame_image: image.optional(),
    }),
    imageFields: ['first_frame_image'],
    defaults: { duration: '6', resolution: '768p' },
    price: () => null,
  }),
  V6: define({
    label: 'V6',
    kind: 'video',
    modes: ['text-to-video', 'image-to-video'],
    input: z.strictObject({
      prompt,
      first_frame_image: image.optional(),
      subject_reference: image.optional(),
    }),
    imageFields: ['first_frame_image', 'subject_reference'],
    defaults: { duration: '6' },
    price: () => usd('0.6'),
  }),
  I1: define({
    label: 'I1',
    kind: 'image',
    modes: ['text-to-image', 'image-to-image'],
    input: z.strictObject({
      prompt,
      input_image: image.optional(),
      aspect_ratio: z.enum(['1:1', '16:9', '9:16']).optional(),
    }),
    imageFields: ['input_image'],
    defaults: { aspect_ratio: 'match_input_image' },
    price: () => usd('0.12'),
  }),
  I2: define({
    label: 'I2',
    kind: 'image',
    modes: ['text-to-image'],
    input: z.strictObject({
      prompt,
      aspect_ratio: z.enum(['3:2', '3:4', '4:3', '4:5', '1:1', '16:9', '9:16', '1:3']).optional(),
    }),
    imageFields: [],
    defaults: { aspect_ratio: '1:1' },
    price: () => usd('0.05'),
  }),
  I3: define({
    label: 'I3',
    kind: 'image',
    modes: ['text-to-image'],
    input: I3_I4_INPUT,
    imageFields: [],
    defaults: { aspect_ratio: '1:1' },
    price: () => usd('0.25'),
  }),
  I4: define({
    label: 'I4',
    kind: 'image',
    modes: ['text-to-image'],
    input: I3_I4_INPUT,
    imageFields: [],
    defaults: { aspect_ratio: '1:1' },
    price: () => usd('0.03'),
  }),
  I5: define({
    label: 'I5',
    kind: 'image',
    modes: ['text-to-image', 'image-to-image'],
    input: z.strictObject({
      prompt,
      image_input: image.optional(),
    }),
    imageFields: ['image_input'],
    defaults: { aspect_ratio: '1:1' },
    price: () => usd('0.06'),
  }),
};

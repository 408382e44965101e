/**
 * A derive step's operations as the spec writes them → the operations the worker runs: defaults
 * filled in, presets expanded, sizes in bytes, the files they read absolute and hashed. What the
 * worker is told is exactly what the user wrote, or the documented default.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../derive/operations.ts';
import type { Plan } from '../../plan/index.ts';
import { planOk } from './write-spec.ts';

const LOGO = Buffer.from(encode({ width: 2, height: 2, data: new Uint8Array(16).fill(90), channels: 4 }));
const SOUND = Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVEfmt '), Buffer.alloc(32)]);
const FILES = { 'logo.png': LOGO, 'sound.wav': SOUND };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const NOTO = createRequire(import.meta.url).resolve(
  '@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf',
);

/** A still (I2) or a clip (V1) step, and a derive step with `items` after it. */
const spec = (parent: 'still' | 'clip', items: string, extra = '') => `version: 1
campaign: derive
${extra}steps:
  - id: source
    model: ${parent === 'still' ? 'I2' : 'V1'}
    input: { prompt: "a teapot" }
  - id: made
    from: source
    derive:
${items
  .split('\n')
  .map((item) => `      - ${item}`)
  .join('\n')}
`;

const derivative = (plan: Plan) => plan.jobs[0]!.derivatives![0]!;
const operations = async (parent: 'still' | 'clip', items: string, extra = '') =>
  derivative(await planOk(spec(parent, items, extra), FILES)).operations;

describe('derive operations, normalised', () => {
  it.each<[string, Operation]>([
    ['crop: { aspect_ratio: "4:5" }', { op: 'crop', aspectRatio: [4, 5], focus: 'centre' }],
    [
      'crop: { aspect_ratio: "16:9", focus: { x: 0.2, y: 0.8 } }',
      { op: 'crop', aspectRatio: [16, 9], focus: { x: 0.2, y: 0.8 } },
    ],
    [
      'crop: { aspect_ratio: "1:1", focus: attention }',
      { op: 'crop', aspectRatio: [1, 1], focus: 'attention' },
    ],
    [
      'resize: { width: 1080 }',
      { op: 'resize', width: 1080, height: null, fit: 'cover', background: '#000000' },
    ],
    [
      'resize: { width: 1080, height: 1920, fit: pad, background: "#ffffff80" }',
      { op: 'resize', width: 1080, height: 1920, fit: 'pad', background: '#ffffff80' },
    ],
    [
      'pad: { width: 2000, height: 1500 }',
      { op: 'pad', width: 2000, height: 1500, position: 'centre', background: '#000000' },
    ],
    ['rotate: { degrees: 270 }', { op: 'rotate', degrees: 270 }],
    [
      'format: { type: webp, quality: 80, max_bytes: 500kb }',
      { op: 'format', type: 'webp', quality: 80, maxBytes: 500_000 },
    ],
    [
      'format: { type: avif, max_bytes: "1.5 MB" }',
      { op: 'format', type: 'avif', quality: null, maxBytes: 1_500_000 },
    ],
    ['format: { type: png, max_bytes: 2048 }', { op: 'format', type: 'png', quality: null, maxBytes: 2048 }],
    [
      'preset: instagram-portrait',
      { op: 'resize', width: 1080, height: 1350, fit: 'cover', background: '#000000' },
    ],
  ])('a still: %s', async (item, expected) => {
    expect(await operations('still', item)).toEqual([expected]);
  });

  it.each<[string, Operation]>([
    ['trim: { start: 1.5 }', { op: 'trim', start: 1.5, duration: null }],
    ['trim: { duration: 6 }', { op: 'trim', start: 0, duration: 6 }],
    ['fps: { value: 12 }', { op: 'fps', value: 12 }],
    ['mute: true', { op: 'mute' }],
    ['mute: {}', { op: 'mute' }],
    ['frame: { at: 2 }', { op: 'frame', at: 2 }],
    [
      'resize: { width: 1080, height: 1920, fit: pad }',
      { op: 'resize', width: 1080, height: 1920, fit: 'pad', background: '#000000' },
    ],
    ['format: { type: mp4 }', { op: 'format', type: 'mp4', quality: null, maxBytes: null }],
  ])('a clip: %s', async (item, expected) => {
    expect(await operations('clip', item)).toEqual([expected]);
  });

  it('gives a text its defaults and the bundled Noto Sans JP Bold, hashed', async () => {
    expect(await operations('still', 'text: { value: "Sale" }')).toEqual([
      {
        op: 'text',
        value: 'Sale',
        position: 'bottom',
        size: 48,
        colour: '#ffffff',
        box: null,
        font: { path: NOTO, sha256: sha256(readFileSync(NOTO)) },
        margin: 32,
      },
    ]);
  });

  it("reads an overlay's picture, a text's font and a clip's sound from beside the spec, by content", async () => {
    const font = Buffer.concat([Buffer.from([0, 1, 0, 0]), Buffer.alloc(60, 7)]);
    const plan = await planOk(
      spec(
        'clip',
        [
          'overlay: { image: logo.png, width: 160, opacity: 0.5 }',
          'text: { value: "Hi", font: brand.ttf, position: top, size: 64, box: "#00000088", margin: 0 }',
          'audio: { file: sound.wav, volume: 0.5 }',
        ].join('\n'),
      ),
      { ...FILES, 'brand.ttf': font },
    );
    const dir = path.dirname(plan.specFile);
    expect(derivative(plan).operations).toEqual([
      {
        op: 'overlay',
        image: { path: path.join(dir, 'logo.png'), sha256: sha256(LOGO) },
        position: 'top-right',
        width: 160,
        opacity: 0.5,
        margin: 32,
      },
      {
        op: 'text',
        value: 'Hi',
        position: 'top',
        size: 64,
        colour: '#ffffff',
        box: '#00000088',
        font: { path: path.join(dir, 'brand.ttf'), sha256: sha256(font) },
        margin: 0,
      },
      { op: 'audio', file: { path: path.join(dir, 'sound.wav'), sha256: sha256(SOUND) }, volume: 0.5 },
    ]);
  });

  it('says what each file is: a clip stays a clip, a frame makes a still', async () => {
    const clip = derivative(await planOk(spec('clip', 'trim: { duration: 2 }'), FILES));
    const poster = derivative(await planOk(spec('clip', 'frame: { at: 1 }\nformat: { type: jpeg }'), FILES));
    const still = derivative(await planOk(spec('still', 'rotate: { degrees: 90 }'), FILES));
    expect([clip.output, poster.output, still.output]).toEqual(['video', 'image', 'image']);
  });
});

describe('presets', () => {
  it.each([
    ['instagram-square', 1080, 1080],
    ['instagram-story', 1080, 1920],
    ['facebook-feed', 1200, 630],
    ['linkedin-banner', 1200, 627],
    ['display-banner', 1200, 628],
    ['youtube-thumbnail', 1280, 720],
    ['x-post', 1600, 900],
  ])('%s is a cover resize to %i×%i', async (name, width, height) => {
    expect(await operations('still', `preset: ${name}`)).toEqual([
      { op: 'resize', width, height, fit: 'cover', background: '#000000' },
    ]);
  });

  it('takes the spec’s own under presets:, and lets one replace a built-in', async () => {
    const presets =
      'presets:\n  shop-tile: { width: 600, height: 800 }\n  reels: { width: 720, height: 1280 }\n';
    expect(await operations('still', 'preset: shop-tile\npreset: reels', presets)).toEqual([
      { op: 'resize', width: 600, height: 800, fit: 'cover', background: '#000000' },
      { op: 'resize', width: 720, height: 1280, fit: 'cover', background: '#000000' },
    ]);
  });
});

/**
 * The emulator's outputs show what was asked (emulator/media/outputs.ts): a still is tinted by
 * the colours its prompt names (CSS names and product colours such as "mint" and "lemon") and
 * has the asked aspect ratio; a video started from a still of another shape is cut to the
 * aspect ratio its input names, so a contact sheet of a sweep can be judged at a glance.
 */
import { convertIndexedToRgb, decode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import type { ModelLabel } from '../../api/catalogue/index.ts';
import { coloursOf, type Rgb } from '../../emulator/media/colours.ts';
import { imageOf, videoOf } from '../../emulator/media/outputs.ts';
import { renderPng } from '../../emulator/media/png.ts';
import type { StoredPrediction } from '../../emulator/predictions/prediction.ts';
import { mp4Info } from '../helpers/mp4-info.ts';

function prediction(label: ModelLabel, input: Record<string, unknown>, id = 7): StoredPrediction {
  return {
    id,
    label,
    owner: 'mf',
    modelSegment: 'base',
    input,
    price: 0,
    keyId: 'key',
    idempotencyKey: undefined,
    fingerprint: '',
    createdAt: '',
    willFail: false,
    willFlag: false,
    upstreamId: undefined,
    status: 'succeeded',
    creditsUsed: 0,
    updatedAt: '',
    outputs: [],
    error: undefined,
  };
}

/** Mean colour of the upper two thirds (the scene; the prompt is written across the bottom). */
function sceneColour(png: Buffer): Rgb {
  const image = decode(png);
  const rgb = convertIndexedToRgb(image);
  const sum = [0, 0, 0];
  const pixels = image.width * Math.floor((2 * image.height) / 3);
  for (let i = 0; i < 3 * pixels; i++) sum[i % 3]! += rgb[i]!;
  return [sum[0]! / pixels, sum[1]! / pixels, sum[2]! / pixels];
}

const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

const SWEEP = ['mint', 'lemon', 'coral', 'navy', 'hot pink', 'teal', 'charcoal', 'sky blue'];
const named = (word: string) => coloursOf(word)[0]!;

describe('the still of a prompt', () => {
  it.each(SWEEP)('reads as %s among the colours of a sweep', (colour) => {
    const scene = sceneColour(imageOf(prediction('I4', { prompt: `a ${colour} sneaker on a plinth` })));
    const nearest = [...SWEEP].sort((a, b) => distance(scene, named(a)) - distance(scene, named(b)))[0];
    expect(nearest).toBe(colour);
    expect(distance(scene, named(colour))).toBeLessThan(60);
  });

  it('knows CSS names, product colours and two-word names, in the order written', () => {
    expect(coloursOf('Lemon sneaker with navy laces')).toEqual([
      [250, 235, 70],
      [0, 0, 128],
    ]);
    expect(coloursOf('forest green tin')).toEqual([[34, 139, 34]]);
    expect(coloursOf('a kite over the hill')).toEqual([]);
  });

  it.each([
    ['I2', '1:1', 512, 512],
    ['I2', '4:5', 410, 512],
    ['I2', '16:9', 512, 288],
    ['I2', '9:16', 288, 512],
    ['I4', '3:4', 384, 512],
  ] as const)('of %s at %s is %i×%i', (label, aspect_ratio, width, height) => {
    const png = decode(imageOf(prediction(label, { prompt: 'a mint tin', aspect_ratio })));
    expect([png.width, png.height]).toEqual([width, height]);
  });
});

describe('the video of a still', () => {
  const square = renderPng('a coral sneaker', 3, { width: 256, height: 256 });
  const sources = { picture: () => undefined, file: () => square };
  const start = 'http://127.0.0.1:9/cdn/files/file_1/start.png';

  it('is cut to the aspect ratio its input names, from the centre', async () => {
    const input = { prompt: 'orbit', image: start, aspect_ratio: '9:16', resolution: '480p' };
    const video = await mp4Info(videoOf(prediction('V1', input), sources));
    expect(video.videoTracks[0].video).toEqual({ width: 144, height: 256 });
    expect([video.videoTracks[0].track_width, video.videoTracks[0].track_height]).toEqual([480, 854]);
  });

  it("keeps the still's shape when the input names no aspect ratio", async () => {
    const input = { prompt: 'orbit', start_image: start };
    const video = await mp4Info(videoOf(prediction('V4', input), sources));
    expect(video.videoTracks[0].video).toEqual({ width: 256, height: 256 });
  });
});

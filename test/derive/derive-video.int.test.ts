/**
 * Clips made by Debian's ffmpeg from a 2 s 320×180 test card with a 440 Hz tone, read back by
 * ffprobe run on its own (not through derive/video/probe.ts): the codec, pixel format, size and
 * length a platform checks, where the MP4's index sits, the sound that is (or is not) there, and
 * the still a `frame` takes, read by sharp.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeriveError } from '../../derive/derive-error.ts';
import { sizeAfter } from '../../derive/geometry.ts';
import type { VideoOperation } from '../../derive/operations.ts';
import { deriveVideo } from '../../derive/video/derive-video.ts';
import { runTool } from '../../derive/video/run-tool.ts';
import { videoTools, videoToolsProblem, videoToolVersion } from '../../derive/video/tools.ts';
import type { Json } from '../helpers/json.ts';

const run = promisify(execFile);
const tools = videoTools(process.env);
const sha256 = '0'.repeat(64);
const font = {
  path: createRequire(import.meta.url).resolve(
    '@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf',
  ),
  sha256,
};
const SOURCE = { width: 320, height: 180 };

let dir: string;
let clip: string;
/** 3 s of 880 Hz at amplitude 0.5 (a mean of about −9 dB): louder than the clip's own tone (−21 dB). */
let bed: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mediaflow-derive-video-'));
  clip = join(dir, 'clip.mp4');
  bed = join(dir, 'bed.wav');
  const lavfi = (graph: string) => ['-f', 'lavfi', '-i', graph];
  await Promise.all([
    run(tools.ffmpeg, [
      ...[
        '-v',
        'error',
        ...lavfi('testsrc=size=320x180:rate=25:duration=2'),
        ...lavfi('sine=440:duration=2'),
      ],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', clip],
    ]),
    run(tools.ffmpeg, ['-v', 'error', ...lavfi('sine=880:duration=3'), '-af', 'volume=4', bed]),
  ]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function ffprobe(path: string): Promise<Json> {
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path];
  return JSON.parse((await run(tools.ffprobe, args)).stdout);
}
const streamOf = (report: Json, type: string): Json =>
  report.streams.find((stream: Json) => stream.codec_type === type);

/** The MP4's top-level boxes in file order: `moov` before `mdat` is what `+faststart` promises. */
function topLevelBoxes(bytes: Buffer): string[] {
  const boxes: string[] = [];
  for (let at = 0; at + 8 <= bytes.length; ) {
    const size = bytes.readUInt32BE(at);
    boxes.push(bytes.toString('latin1', at + 4, at + 8));
    if (size < 8) break;
    at += size;
  }
  return boxes;
}

/** The mean loudness of a file's sound, in dB, as ffmpeg's volumedetect measures it. */
async function meanVolume(path: string): Promise<number> {
  const { stderr } = await run(tools.ffmpeg, [
    '-hide_banner',
    '-i',
    path,
    '-af',
    'volumedetect',
    '-f',
    'null',
    '-',
  ]);
  return Number(/mean_volume: (-?[\d.]+) dB/.exec(stderr)?.[1]);
}

const derive = (
  operations: readonly VideoOperation[],
  name: string,
  onProgress?: (fraction: number) => void,
) => deriveVideo(clip, operations, join(dir, name), { tools, threads: 2, onProgress });

const trim = (start: number, duration: number | null): VideoOperation => ({ op: 'trim', start, duration });
const portrait: VideoOperation = { op: 'resize', width: 180, height: 320, fit: 'pad', background: '#000000' };
const headline: VideoOperation = {
  op: 'text',
  value: 'Été à Paris',
  position: 'bottom',
  size: 20,
  colour: '#ffffff',
  box: '#00000088',
  font,
  margin: 8,
};

describe('clips through ffmpeg', () => {
  it('finds the tools and names their version for the job key', async () => {
    expect(await videoToolsProblem(tools)).toBeNull();
    expect(await videoToolVersion(tools)).toMatch(/^ffmpeg version \S+/);
    const missing = await videoToolsProblem({ ffmpeg: 'no-such-ffmpeg', ffprobe: tools.ffprobe });
    expect(missing).toMatch(
      /^ffmpeg \(no-such-ffmpeg\) cannot be run: .*apt-get install ffmpeg.*MEDIAFLOW_FFMPEG/,
    );
  });

  it('the reel: 1 s, letterboxed to 180×320 with a headline, H.264 4:2:0 with the index first', async () => {
    const operations: VideoOperation[] = [
      trim(0.5, 1),
      portrait,
      headline,
      { op: 'format', type: 'mp4', quality: null, maxBytes: null },
    ];
    const progress: number[] = [];
    const made = await derive(operations, 'reel.mp4', (fraction) => progress.push(fraction));

    const report = await ffprobe(join(dir, 'reel.mp4'));
    const video = streamOf(report, 'video');
    expect([video.codec_name, video.pix_fmt, video.width, video.height]).toEqual([
      'h264',
      'yuv420p',
      180,
      320,
    ]);
    const promised = sizeAfter(SOURCE, operations, 'even');
    expect(promised.ok && promised.size).toEqual({ width: 180, height: 320 });
    expect(Number(video.duration)).toBeCloseTo(1, 1);
    expect(streamOf(report, 'audio').codec_name).toBe('aac');
    const boxes = topLevelBoxes(await readFile(join(dir, 'reel.mp4')));
    expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    expect(made).toMatchObject({ kind: 'clip', format: 'mp4', width: 180, height: 320 });
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('webm: VP9 with Opus sound', async () => {
    const made = await derive(
      [trim(0, 1), { op: 'format', type: 'webm', quality: null, maxBytes: null }],
      'clip.webm',
    );
    const report = await ffprobe(join(dir, 'clip.webm'));
    expect(report.format.format_name).toContain('webm');
    expect(streamOf(report, 'video').codec_name).toBe('vp9');
    expect(streamOf(report, 'audio').codec_name).toBe('opus');
    expect(Number(report.format.duration)).toBeCloseTo(1, 1);
    expect(made).toMatchObject({ kind: 'clip', format: 'webm', width: 320, height: 180 });
  });

  it('mute leaves no sound; fps sets the frame rate', async () => {
    await derive([{ op: 'mute' }, { op: 'fps', value: 10 }], 'silent.mp4');
    const report = await ffprobe(join(dir, 'silent.mp4'));
    expect(streamOf(report, 'audio')).toBeUndefined();
    expect(streamOf(report, 'video').avg_frame_rate).toBe('10/1');
    expect(Number(streamOf(report, 'video').nb_frames)).toBe(20);
  });

  it("audio: the file's sound in place of the clip's, cut to the clip, at half volume", async () => {
    expect(await meanVolume(clip)).toBeLessThan(-18);
    await derive([trim(0, 1), { op: 'audio', file: { path: bed, sha256 }, volume: 0.5 }], 'bed.mp4');
    const report = await ffprobe(join(dir, 'bed.mp4'));
    expect(Number(streamOf(report, 'audio').duration)).toBeCloseTo(1, 1);
    // The bed's −9 dB at half volume is −15 dB; the clip's own tone would be −21 dB.
    expect(Math.abs((await meanVolume(join(dir, 'bed.mp4'))) + 15)).toBeLessThan(1.5);
  });

  it("frame: a PNG still of the clip's size, with the headline burnt in, and the rest for the image side", async () => {
    const jpeg: VideoOperation = { op: 'format', type: 'jpeg', quality: 80, maxBytes: null };
    const made = await derive([portrait, headline, { op: 'frame', at: 1.5 }, jpeg], 'unused.png');
    if (made.kind !== 'still') throw new Error(`a still was expected, got a ${made.kind}`);
    expect(made.rest).toEqual([jpeg]);
    const { data, info } = await sharp(made.data).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([180, 320]);
    // The letterbox below the picture is black: anything bright there is the headline's letters.
    const band = data.subarray(230 * info.width, 312 * info.width);
    expect(Math.max(...band)).toBeGreaterThan(200);
    expect(existsSync(join(dir, 'unused.png'))).toBe(false);
  });

  it('a trim that starts past the end names trim and leaves no file', async () => {
    const failure = await derive([trim(2.5, null)], 'late.mp4').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeriveError);
    expect(failure).toMatchObject({ operation: { index: 0, name: 'trim' } });
    expect(String(failure)).toMatch(
      /operation 1 \(trim\): starts at 2\.5 s, past the end of a clip 2 s long/,
    );
    expect(existsSync(join(dir, 'late.mp4'))).toBe(false);
  });

  it('a clip over max_bytes is not kept: the format is blamed', async () => {
    const small: VideoOperation = { op: 'format', type: 'mp4', quality: null, maxBytes: 1_000 };
    const failure = await derive([trim(0, 0.2), small], 'big.mp4').catch((error: unknown) => error);
    expect(String(failure)).toMatch(
      /^DeriveError: operation 2 \(format\): the clip is \d+ bytes, over max_bytes 1000$/,
    );
    expect(existsSync(join(dir, 'big.mp4'))).toBe(false);
  });

  it('a font that is not there is named before ffmpeg runs (it would draw another font unasked)', async () => {
    const missing = join(dir, 'missing.ttf');
    const failure = await derive([{ ...headline, font: { path: missing, sha256 } }], 'fontless.mp4').catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DeriveError);
    expect(String(failure)).toBe(`DeriveError: operation 1 (text): cannot read ${missing}`);
    expect(existsSync(join(dir, 'fontless.mp4'))).toBe(false);
  });

  it("a logo ffmpeg cannot read: blamed on the overlay, in ffmpeg's own words, no file left", async () => {
    const logo = join(dir, 'logo.png');
    await writeFile(logo, 'not a picture');
    const overlay: VideoOperation = {
      op: 'overlay',
      image: { path: logo, sha256 },
      position: 'top-right',
      width: 40,
      opacity: 1,
      margin: 4,
    };
    const failure = await derive([trim(0, 1), overlay], 'logo.mp4').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeriveError);
    expect(failure).toMatchObject({ operation: { index: 1, name: 'overlay' } });
    expect(String(failure)).toMatch(/operation 2 \(overlay\): ffmpeg failed \(.*Invalid data found/);
    expect(existsSync(join(dir, 'logo.mp4'))).toBe(false);
  });

  it("keeps only a tool's last stderr lines for the message", async () => {
    const noisy = 'for (let line = 1; line <= 50; line++) console.error("line " + line)';
    const { stderrTail } = await runTool(process.execPath, ['-e', noisy]);
    expect(stderrTail).toEqual([
      'line 43',
      'line 44',
      'line 45',
      'line 46',
      'line 47',
      'line 48',
      'line 49',
      'line 50',
    ]);
  });

  it('an abort kills ffmpeg and leaves no file', async () => {
    const controller = new AbortController();
    const output = join(dir, 'aborted.mp4');
    const aborted = deriveVideo(clip, [portrait, headline], output, {
      tools,
      threads: 1,
      signal: controller.signal,
      onProgress: () => controller.abort(new Error('stopped by the test')),
    });
    await expect(aborted).rejects.toThrow('stopped by the test');
    expect(existsSync(output)).toBe(false);
  });
});

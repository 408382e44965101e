/**
 * The ffmpeg run a clip's operations become, read without running it: the filter graph, the
 * arguments, the files ffmpeg reads and the size it will make, which must be what geometry
 * promised validate (sizeAfter on the even grid). What ffmpeg then does with them is
 * derive-video.int.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { DeriveError } from '../../derive/derive-error.ts';
import { sizeAfter } from '../../derive/geometry.ts';
import type { VideoOperation } from '../../derive/operations.ts';
import { ffmpegRun } from '../../derive/video/ffmpeg-arguments.ts';
import { ffmpegFailure } from '../../derive/video/ffmpeg-failure.ts';
import { ProbedVideo } from '../../derive/video/probe.ts';
import { progressFraction } from '../../derive/video/progress.ts';
import { wrapText } from '../../derive/video/wrap-text.ts';

const sha256 = 'a'.repeat(64);
const font = { path: '/fonts/Noto.ttf', sha256 };
const HD: ProbedVideo = {
  width: 1920,
  height: 1080,
  durationSeconds: 10,
  videoCodec: 'h264',
  pixelFormat: 'yuv420p',
  hasAudio: true,
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
};

const trim = (start: number, duration: number | null): VideoOperation => ({ op: 'trim', start, duration });
const mp4: VideoOperation = { op: 'format', type: 'mp4', quality: null, maxBytes: null };
const headline: VideoOperation = {
  op: 'text',
  value: 'Été à Paris',
  position: 'bottom',
  size: 64,
  colour: '#ffffff',
  box: '#00000088',
  font,
  margin: 40,
};

const run = (operations: readonly VideoOperation[], source: ProbedVideo = HD) =>
  ffmpegRun({ source, inputPath: '/in/clip.mp4', operations, outputPath: '/out/reel.mp4', threads: 2 });

/** The value after `flag` in the arguments (the first one). */
const flagValue = (args: readonly string[], flag: string) => args[args.indexOf(flag) + 1];

const DRAWTEXT =
  'drawtext=fontfile=font-2.ttf:textfile=text-2.txt:expansion=none:fontsize=64:fontcolor=0xffffff:line_spacing=13:x=(w-text_w)/2:y=h-text_h-59:box=1:boxcolor=0x00000088:boxborderw=19';

describe('the filter graph of a clip', () => {
  const cases: { name: string; operations: VideoOperation[]; graph: string; source?: ProbedVideo }[] = [
    {
      name: 'the reel: trim, letterboxed to 1080×1920, a headline, mp4',
      operations: [
        trim(0, 6),
        { op: 'resize', width: 1080, height: 1920, fit: 'pad', background: '#000000' },
        headline,
        mp4,
      ],
      graph: `[0:v]scale=1080:1920:force_original_aspect_ratio=decrease:force_divisible_by=2,pad=1080:1920:-1:-1:color=0x000000,${DRAWTEXT},setsar=1[vout]`,
    },
    {
      name: 'a square crop at a point, then cover to 600×400',
      operations: [
        { op: 'crop', aspectRatio: [1, 1], focus: { x: 0, y: 0.5 } },
        { op: 'resize', width: 600, height: 400, fit: 'cover', background: '#000000' },
      ],
      graph:
        '[0:v]crop=1080:1080:0:0:exact=1,scale=600:400:force_original_aspect_ratio=increase,crop=600:400,setsar=1[vout]',
    },
    {
      name: 'attention has no ffmpeg equivalent: the centre is cut',
      operations: [{ op: 'crop', aspectRatio: [4, 5], focus: 'attention' }],
      graph: '[0:v]crop=864:1080:528:0:exact=1,setsar=1[vout]',
    },
    {
      name: 'a width alone keeps the ratio, on even sides',
      operations: [{ op: 'resize', width: 333, height: null, fit: 'cover', background: '#000000' }],
      graph: '[0:v]scale=332:186,setsar=1[vout]',
    },
    {
      name: 'rotations turn clockwise; a pad places the picture at its anchor',
      operations: [
        { op: 'rotate', degrees: 90 },
        { op: 'pad', width: 1200, height: 2000, position: 'top-right', background: '#ff000080' },
        { op: 'rotate', degrees: 180 },
      ],
      graph: '[0:v]transpose=clock,pad=1200:2000:120:0:color=0xff000080,hflip,vflip,setsar=1[vout]',
    },
    {
      name: 'a logo on an input of its own, scaled and faded; the chain goes on after it',
      operations: [
        {
          op: 'overlay',
          image: { path: '/brand/logo.png', sha256 },
          position: 'top-right',
          width: 160,
          opacity: 0.5,
          margin: 24,
        },
        { op: 'fps', value: 12 },
      ],
      graph:
        '[0:v]null[v1];[1:v]scale=160:-1,format=rgba,colorchannelmixer=aa=0.5[o2];[v1][o2]overlay=x=W-w-24:y=24,fps=12,setsar=1[vout]',
    },
    {
      name: 'an odd-sized source is first cut to even sides',
      operations: [mp4],
      source: { ...HD, width: 321, height: 181 },
      graph: '[0:v]crop=320:180:0:0:exact=1,setsar=1[vout]',
    },
  ];

  for (const { name, operations, graph, source = HD } of cases) {
    it(name, () => {
      const made = run(operations, source);
      expect(made.graph.text()).toBe(graph);
      const promised = sizeAfter(source, operations, 'even');
      expect(promised.ok && made.product.size).toEqual(promised.ok && promised.size);
    });
  }

  it('hands drawtext the words and the font as files of its working folder, wrapped to the frame', () => {
    const long = { ...headline, value: 'Un été à Paris, sous le soleil de juillet' };
    const made = run([{ op: 'resize', width: 720, height: null, fit: 'cover', background: '#000000' }, long]);
    expect(made.files).toEqual([
      { name: 'font-1.ttf', link: { path: '/fonts/Noto.ttf', owner: 1 } },
      { name: 'text-1.txt', contents: 'Un été à Paris,\nsous le soleil\nde juillet' },
    ]);
  });
});

describe('the arguments of a clip', () => {
  it('the reel: seeks the kept part, keeps the sound, H.264 4:2:0 with the index first', () => {
    const { args, seconds } = run([trim(1.5, 6), mp4]);
    expect(args.slice(args.indexOf('-ss'), args.indexOf('-i') + 2)).toEqual([
      '-ss',
      '1.5',
      '-t',
      '6',
      '-threads',
      '2',
      '-i',
      '/in/clip.mp4',
    ]);
    expect(flagValue(args, '-map')).toBe('[vout]');
    expect(args.join(' ')).toContain('-map 0:a:0 -c:v libx264');
    expect(args.join(' ')).toContain('-pix_fmt yuv420p -c:a aac -b:a 128k -movflags +faststart -f mp4');
    expect(args.slice(-4)).toEqual(['-progress', 'pipe:1', '-nostats', '/out/reel.mp4']);
    expect(seconds).toBe(6);
  });

  it('trims compose: the second cuts what the first kept; a trim to the end needs no -t', () => {
    expect(run([trim(1, 5), trim(1, null)]).args.join(' ')).toContain('-ss 2 -t 4 ');
    const toTheEnd = run([trim(0.1, null), trim(0.2, null)]);
    expect(toTheEnd.args.join(' ')).toContain('-ss 0.3 -threads');
    expect(toTheEnd.seconds).toBeCloseTo(9.7);
  });

  it('mute drops the sound; webm is VP9 at realtime settings with Opus', () => {
    const { args } = run([{ op: 'mute' }, { op: 'format', type: 'webm', quality: 100, maxBytes: null }]);
    expect(args).toContain('-an');
    expect(args.join(' ')).toContain(
      '-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -row-mt 1 -crf 23 -b:v 0',
    );
    expect(args).not.toContain('-c:a');
    expect(flagValue(args, '-f')).toBe('webm');
  });

  it("audio replaces the sound with a file's, cut or padded to the clip, at its volume", () => {
    const sound: VideoOperation = { op: 'audio', file: { path: '/sound/bed.m4a', sha256 }, volume: 0.5 };
    const made = run([trim(2, 3), sound]);
    expect(made.graph.text()).toBe('[0:v]setsar=1[vout];[1:a]atrim=end=3,apad=whole_dur=3,volume=0.5[aout]');
    expect(made.args.join(' ')).toContain('-i /in/clip.mp4 -i /sound/bed.m4a -filter_complex');
    expect(made.args.join(' ')).toContain('-map [vout] -map [aout] ');
  });

  it('the poster: one seek to the frame, a PNG still of the size so far, the rest for the image side', () => {
    const jpeg: VideoOperation = { op: 'format', type: 'jpeg', quality: null, maxBytes: null };
    const made = run([trim(2, null), { op: 'frame', at: 1.5 }, jpeg]);
    expect(made.args.join(' ')).toContain(
      '-ss 3.5 -threads 2 -i /in/clip.mp4 -filter_complex [0:v]setsar=1[vout]',
    );
    expect(made.args.slice(-7)).toEqual(['-frames:v', '1', '-c:v', 'png', '-update', '1', 'still.png']);
    expect(made.product).toEqual({
      kind: 'still',
      file: 'still.png',
      size: { width: 1920, height: 1080 },
      rest: [jpeg],
    });
  });
});

describe('clips that cannot be made', () => {
  const cases: { name: string; operations: VideoOperation[]; index: number; message: RegExp }[] = [
    {
      name: 'a trim that starts past the end',
      operations: [trim(4, null), trim(7, null)],
      index: 1,
      message: /trim\): starts at 7 s, past the end of a clip 6 s long/,
    },
    {
      name: 'a frame past the end',
      operations: [trim(0, 2), { op: 'frame', at: 2 }],
      index: 1,
      message: /frame/,
    },
    {
      name: 'an image format without a frame',
      operations: [{ op: 'format', type: 'png', quality: null, maxBytes: null }],
      index: 0,
      message: /cannot be made a png: take a frame first/,
    },
    {
      name: 'a pad smaller than the picture',
      operations: [{ op: 'pad', width: 100, height: 100, position: 'centre', background: '#000000' }],
      index: 0,
      message: /cannot pad 1920×1080 to 100×100/,
    },
  ];
  for (const { name, operations, index, message } of cases) {
    it(name, () => {
      const error = (() => {
        try {
          run(operations);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(DeriveError);
      expect(error).toMatchObject({ operation: { index, name: operations[index]!.op } });
      expect(String(error)).toMatch(message);
    });
  }

  it("blames the operation whose filter ffmpeg names, and shows only stderr's last lines", () => {
    const operations = [trim(0, 2), headline];
    const error = ffmpegFailure(
      run(operations),
      operations,
      ['[Parsed_drawtext_0 @ 0x5] Cannot load font'],
      1,
    );
    expect(error.operation).toEqual({ index: 1, name: 'text' });
    expect(error.message).toBe(
      'operation 2 (text): ffmpeg failed ([Parsed_drawtext_0 @ 0x5] Cannot load font)',
    );
    expect(
      ffmpegFailure(run(operations), operations, ['/in/clip.mp4: Invalid data'], 1).operation,
    ).toBeNull();
  });
});

describe("reading ffprobe's report", () => {
  const report = (sideData: object[]) => ({
    streams: [
      {
        codec_type: 'video',
        codec_name: 'h264',
        width: 1920,
        height: 1080,
        pix_fmt: 'yuv420p',
        side_data_list: sideData,
      },
    ],
    format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '4.500000' },
  });

  it('gives the size the frames show at: a phone clip turned a quarter has its sides swapped', () => {
    expect(ProbedVideo.parse(report([]))).toEqual({ ...HD, durationSeconds: 4.5, hasAudio: false });
    expect(ProbedVideo.parse(report([{ rotation: -90 }]))).toMatchObject({ width: 1080, height: 1920 });
    expect(ProbedVideo.parse(report([{ rotation: 180 }]))).toMatchObject({ width: 1920, height: 1080 });
  });

  it('refuses a report without a picture', () => {
    const soundOnly = { streams: [{ codec_type: 'audio' }], format: { format_name: 'wav', duration: '1' } };
    expect(ProbedVideo.safeParse(soundOnly).success).toBe(false);
  });
});

describe('progress and line breaks', () => {
  it('reads out_time_us against the expected length', () => {
    expect(progressFraction('out_time_us=1500000', 6)).toBe(0.25);
    expect(progressFraction('out_time_us=9000000', 6)).toBe(1);
    expect(progressFraction('out_time_us=N/A', 6)).toBeNull();
    expect(progressFraction('progress=end', 6)).toBe(1);
    expect(progressFraction('frame=12', 6)).toBeNull();
  });

  it('breaks at spaces, anywhere between wide glyphs, and keeps the lines given', () => {
    expect(wrapText('Été à Paris', 20, 1000)).toEqual(['Été à Paris']);
    expect(wrapText('one two three', 10, 50)).toEqual(['one two', 'three']);
    expect(wrapText('東京の夏祭り', 20, 60)).toEqual(['東京の', '夏祭り']);
    expect(wrapText('first\nsecond', 10, 1000)).toEqual(['first', 'second']);
  });
});

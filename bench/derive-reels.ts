/**
 * `npm run bench -- derive-reels-100 [--clips N]`: 100 clips (8 s, 1280×720 H.264 with sound, as
 * the service would deliver them), each trimmed to 6 s, letterboxed to a 1080×1920 reel and
 * captioned, by a plain ffmpeg loop (the same filters, the same encoder settings, as many clips at
 * once as the worker derives, each ffmpeg at nice 10 with the same threads as the worker gives
 * one) and by mediaflow's derive stage as a worker runs it after each save (activities/derive/:
 * the parent written to a working folder, probed, cut, probed again, stored, with its XMP sidecar,
 * C2PA signature and record), in one invocation, on the same clips.
 * Goal (issue 40): mediaflow within 1.15 × the loop.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { deriveDeps } from '../activities/derive/deps.ts';
import type { Operation } from '../derive/operations.ts';
import { runTool } from '../derive/video/run-tool.ts';
import { deriveAll, measured, type Parent, parentOf } from './lib/derive-stage.ts';
import { treeCpuSeconds } from './lib/proc-stats.ts';
import { round, type Verdict, verdict } from './lib/report.ts';

const FONT = createRequire(import.meta.url).resolve(
  '@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf',
);
const CAPTION = 'New season, same softness';
/** Distinct source clips made; the rest are copies of them (making each costs about a second). */
const SOURCES = 8;

function operations(font: { path: string; sha256: string }): Operation[] {
  return [
    { op: 'trim', start: 1, duration: 6 },
    { op: 'resize', width: 1080, height: 1920, fit: 'pad', background: '#000000' },
    {
      op: 'text',
      value: CAPTION,
      position: 'bottom',
      size: 56,
      colour: '#ffffff',
      box: '#00000088',
      font,
      margin: 64,
    },
    { op: 'format', type: 'mp4', quality: null, maxBytes: null },
  ];
}

async function ffmpeg(tool: string, args: readonly string[], cwd?: string): Promise<void> {
  const run = await runTool(tool, args, cwd === undefined ? {} : { cwd });
  if (run.exitCode !== 0) throw new Error(`ffmpeg failed: ${run.stderrTail.join(' / ')}`);
}

/** Clip `index`: a moving test card and a tone of its own, 8 s at 30 fps. */
async function sourceClip(tool: string, index: number, path: string): Promise<void> {
  const lavfi = (graph: string) => ['-f', 'lavfi', '-i', graph];
  await ffmpeg(tool, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...lavfi(`testsrc2=size=1280x720:rate=30:duration=8,hue=h=${index * 45}`),
    ...lavfi(`sine=${220 + index * 55}:duration=8`),
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', path],
  ]);
}

/**
 * The reel as a plain script would ask ffmpeg for it: what mediaflow's filters do (its x264
 * quality 85 is CRF 23, its box border 0.3 of the size, its lines 0.2 apart), with the caption
 * read from a file, as mediaflow's is (the loop knows it fits one line).
 */
function plainArguments(input: string, output: string, threads: number): string[] {
  const padding = Math.round(56 * 0.3);
  const caption = [
    'fontfile=font.ttf',
    'textfile=caption.txt',
    'expansion=none',
    'fontsize=56',
    'fontcolor=0xffffff',
    `x=(w-text_w)/2`,
    `y=h-text_h-${64 + padding}`,
    'box=1',
    'boxcolor=0x00000088',
    `boxborderw=${padding}`,
  ].join(':');
  const graph = [
    'scale=1080:1920:force_original_aspect_ratio=decrease:force_divisible_by=2',
    'pad=1080:1920:-1:-1:color=0x000000',
    `drawtext=${caption}`,
    'setsar=1',
  ].join(',');
  const t = String(threads);
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-filter_complex_threads', t],
    ...['-ss', '1', '-t', '6', '-threads', t, '-i', input],
    ...['-filter_complex', `[0:v]${graph}[v]`, '-map', '[v]', '-map', '0:a:0'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', '-f', 'mp4', '-threads', t, output],
  ];
}

/** As `measured`, and the CPU seconds of the tools it ran (children reaped: cutime + cstime). */
async function withTools<T>(work: () => Promise<T>) {
  const before = treeCpuSeconds(process.pid);
  const done = await measured(work);
  return { ...done, toolsCpuS: round(treeCpuSeconds(process.pid) - before - done.cpuS, 2) };
}

export async function measureDeriveReels(clipCount = 100) {
  const deps = deriveDeps();
  const { ffmpeg: tool } = deps.video;
  const concurrency = deps.limit.concurrency;
  const root = await mkdtemp(join(tmpdir(), 'mediaflow-bench-reels-'));
  try {
    const fontBytes = await readFile(FONT);
    const font = { path: FONT, sha256: createHash('sha256').update(fontBytes).digest('hex') };
    const folder = join(root, 'campaign');
    await mkdir(join(folder, 'clip'), { recursive: true });
    const sources = Array.from({ length: Math.min(SOURCES, clipCount) }, (_, index) =>
      join(root, `source-${index}.mp4`),
    );
    const making = pLimit(concurrency);
    await Promise.all(sources.map((path, index) => making(() => sourceClip(tool, index, path))));
    const files: string[] = [];
    const parents: Parent[] = [];
    for (let index = 0; index < clipCount; index++) {
      const bytes = await readFile(sources[index % sources.length] ?? '');
      const file = `clip/c${index}.mp4`;
      await writeFile(join(folder, file), bytes);
      files.push(join(folder, file));
      const derivations = [{ step: 'reel', operations: operations(font) }];
      parents.push(parentOf(index, { step: 'clip', model: 'V1', file, bytes }, derivations));
    }
    const loopOut = join(root, 'loop');
    await mkdir(loopOut);
    // drawtext reads the font and the words from the working folder, as mediaflow's run does.
    await writeFile(join(loopOut, 'font.ttf'), fontBytes);
    await writeFile(join(loopOut, 'caption.txt'), CAPTION);
    const limit = pLimit(concurrency);
    const loop = await withTools(() =>
      Promise.all(
        files.map((input, index) =>
          limit(() => ffmpeg(tool, plainArguments(input, `reel-${index}.mp4`, deps.threads), loopOut)),
        ),
      ),
    );
    const mediaflow = await withTools(() => deriveAll(folder, parents));
    const overLoop = round(mediaflow.wallS / loop.wallS, 3);
    const verdicts: Verdict[] = [
      verdict('mediaflow’s derive stage within 1.15 × a plain ffmpeg loop', overLoop, 1.15, '×'),
    ];
    return {
      clips: clipCount,
      concurrency,
      threadsPerClip: deps.threads,
      loop: { wallS: loop.wallS, cpuS: loop.cpuS, ffmpegCpuS: loop.toolsCpuS },
      mediaflow: {
        wallS: mediaflow.wallS,
        cpuS: mediaflow.cpuS,
        ffmpegCpuS: mediaflow.toolsCpuS,
        peakMb: mediaflow.peakMb,
        ...mediaflow.value,
      },
      overLoop,
      verdicts,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

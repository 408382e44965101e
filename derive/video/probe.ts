/**
 * What a clip is, read by ffprobe: the size its frames show at (after the rotation a phone
 * records), how long it runs, how it is encoded and whether it has sound. ffprobe's JSON comes
 * from outside the program, so it is parsed, never cast.
 */
import { z } from 'zod';
import { DeriveError } from '../derive-error.ts';
import { runTool } from './run-tool.ts';
import type { VideoTools } from './tools.ts';

const Stream = z.object({
  codec_type: z.string(),
  codec_name: z.string().optional(),
  width: z.int().positive().optional(),
  height: z.int().positive().optional(),
  pix_fmt: z.string().optional(),
  side_data_list: z.array(z.object({ rotation: z.number().optional() })).optional(),
});

const FfprobeReport = z.object({
  streams: z.array(Stream),
  format: z.object({ format_name: z.string(), duration: z.coerce.number().nonnegative() }),
});

export const ProbedVideo = FfprobeReport.transform((report, context) => {
  const video = report.streams.find((stream) => stream.codec_type === 'video');
  if (video?.width === undefined || video.height === undefined) {
    context.addIssue({ code: 'custom', message: 'no video stream with a size' });
    return z.NEVER;
  }
  // ffmpeg turns such frames upright as it decodes them, so the filters see the sides swapped.
  const rotation = video.side_data_list?.find((data) => data.rotation !== undefined)?.rotation ?? 0;
  const quarterTurn = Math.abs(rotation) % 180 === 90;
  return {
    width: quarterTurn ? video.height : video.width,
    height: quarterTurn ? video.width : video.height,
    durationSeconds: report.format.duration,
    videoCodec: video.codec_name ?? 'unknown',
    pixelFormat: video.pix_fmt ?? 'unknown',
    hasAudio: report.streams.some((stream) => stream.codec_type === 'audio'),
    formatName: report.format.format_name,
  };
});
export type ProbedVideo = z.output<typeof ProbedVideo>;

/** Reads `path`; a file ffprobe cannot read as a clip is a DeriveError of the input (no operation). */
export async function probe(path: string, tools: VideoTools): Promise<ProbedVideo> {
  const run = await runTool(tools.ffprobe, [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    path,
  ]);
  if (run.exitCode !== 0) {
    throw new DeriveError(
      null,
      `ffprobe cannot read the clip: ${run.stderrTail.join(' ') || `exit ${run.exitCode}`}`,
    );
  }
  const parsed = ProbedVideo.safeParse(JSON.parse(run.stdout));
  if (!parsed.success) throw new DeriveError(null, `not a clip: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
